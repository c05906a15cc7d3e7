"""A strict Content-Security-Policy for the pages that handle a player's chips (``/play/``): scripts and styles
only from this site's files (no inline script, no style attribute, no ``eval``), connections only to this site and
its live server, nothing framed, no plugin, forms only to this site. An injected ``<script>`` or ``onclick`` does
not run (docs/security.md, "The player pages")."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.http.request import split_domain_port


def live_origins(request: HttpRequest) -> list[str]:
    """Where the page's WebSocket goes: ``LIVE_WS_URL``'s origin, else this host on ``LIVE_PORT``."""
    if settings.LIVE_WS_URL:
        parts = urlsplit(settings.LIVE_WS_URL)
        return [f"{parts.scheme}://{parts.netloc}"]
    host, _ = split_domain_port(request.get_host())
    host = f"[{host}]" if ":" in host else host
    return [f"ws://{host}:{settings.LIVE_PORT}", f"wss://{host}:{settings.LIVE_PORT}"]


def strict_policy(request: HttpRequest) -> str:
    return "; ".join(
        [
            "default-src 'none'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self' data:",
            "font-src 'self'",
            "connect-src 'self' " + " ".join(live_origins(request)),
            "form-action 'self'",
            "base-uri 'none'",
            "frame-ancestors 'none'",
            "object-src 'none'",
        ]
    )


def with_strict_csp(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    response["Content-Security-Policy"] = strict_policy(request)
    return response
