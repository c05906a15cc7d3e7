from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

from casino.docs import RedocDocsView, SwaggerDocsView
from casino.health import healthz
from casino.login_lockout import admin_login
from casino.metrics import metrics_view
from responsible.page import limits_page
from tables.live.page import table_page

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/login/", admin_login, name="admin-login"),  # throttled like POST /auth/token (login_lockout)
    path("metrics", metrics_view, name="metrics"),  # Prometheus; off unless METRICS_TOKEN / METRICS_ALLOW_IPS
    path("admin/", admin.site.urls),
    path("api/v1/", include("casino.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SwaggerDocsView.as_view(url_name="schema"), name="api-docs"),
    path("api/redoc/", RedocDocsView.as_view(url_name="schema"), name="api-redoc"),
    path("play/tables/<int:table_id>/", table_page, name="play-table"),
    path("play/limits/", limits_page, name="play-limits"),  # responsible gaming (docs/responsible-gaming.md)
]

# JSON error bodies on /api/ paths (API.md), Django's pages elsewhere
handler400 = "casino.api.errors.bad_request"
handler403 = "casino.api.errors.permission_denied"
handler404 = "casino.api.errors.page_not_found"
handler500 = "casino.api.errors.server_error"
