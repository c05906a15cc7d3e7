from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

from accounts.login_lockout import admin_login
from accounts.views.page_auth import PageRegisterView, PageSignInView, PageSignOutView
from backoffice.admin import password_change_by_the_owner
from backoffice.metrics import metrics_view
from kit.apidocs import RedocDocsView, SwaggerDocsView
from kit.health import healthz, readyz
from responsible.page import limits_page
from tables.live.page import history_page, lobby_page, root_redirect, table_page

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("readyz", readyz, name="readyz"),  # the casino can deal: worker, beat (and signer) alive too
    path("admin/login/", admin_login, name="admin-login"),  # throttled like POST /auth/token (login_lockout)
    path("metrics", metrics_view, name="metrics"),  # Prometheus; off unless METRICS_TOKEN / METRICS_ALLOW_IPS
    # staff passwords are the owner role's (manage.py staff_account): Django's change form would be refused (#43)
    path("admin/password_change/", password_change_by_the_owner, name="admin-password-change"),
    path("admin/", admin.site.urls),
    path("api/v1/", include("accounts.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SwaggerDocsView.as_view(url_name="schema"), name="api-docs"),
    path("api/redoc/", RedocDocsView.as_view(url_name="schema"), name="api-redoc"),
    path("", root_redirect, name="root"),
    path("play/", lobby_page, name="play-lobby"),
    path("play/history/", history_page, name="play-history"),
    path("play/tables/<int:table_id>/", table_page, name="play-table"),
    path("play/limits/", limits_page, name="play-limits"),  # responsible gaming (docs/responsible-gaming.md)
    path("play/session", PageSignInView.as_view(), name="play-session"),  # the pages' sign-in (docs/client.md)
    path("play/session/end", PageSignOutView.as_view(), name="play-session-end"),
    path("play/register", PageRegisterView.as_view(), name="play-register"),
    path("i18n/", include("django.conf.urls.i18n")),  # set_language: the client's language menu
]

# JSON error bodies on /api/ paths (API.md), Django's pages elsewhere
handler400 = "kit.error_views.bad_request"
handler403 = "kit.error_views.permission_denied"
handler404 = "kit.error_views.page_not_found"
handler500 = "kit.error_views.server_error"
