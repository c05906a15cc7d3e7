"""The API docs (Swagger UI at /api/docs/, ReDoc at /api/redoc/) from our own static files only.

drf-spectacular-sidecar ships both front ends as static files (settings: ``SWAGGER_UI_DIST = "SIDECAR"``), so
the pages work on a back-office network with no internet access. The pages also carry a Content-Security-Policy
that lets the browser load nothing but this server: ReDoc's bundle would otherwise fetch its footer logo from a
CDN (``templates/drf_spectacular/redoc.html`` also drops the web-font links of drf-spectacular's template).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerView
from rest_framework.response import Response

# 'unsafe-inline' scripts: the pages' small init script is inline (drf-spectacular's templates); blob: workers:
# ReDoc's search index runs in a worker made from a blob.
DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; "
    "frame-ancestors 'none'; base-uri 'self'; form-action 'self'"
)


class _OfflineDocs:
    def finalize_response(self, request: HttpRequest, response: Response, *args: Any, **kwargs: Any) -> Response:
        response = super().finalize_response(request, response, *args, **kwargs)  # type: ignore[misc]
        response["Content-Security-Policy"] = DOCS_CSP
        return response


class SwaggerDocsView(_OfflineDocs, SpectacularSwaggerView):
    """Swagger UI, interactive (the session's or a token's credentials)."""


class RedocDocsView(_OfflineDocs, SpectacularRedocView):
    """ReDoc, for reading."""
