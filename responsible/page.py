"""The reference player page of responsible gaming, ``/play/limits/``: limits, pending raises, the reality check
and the break and self-exclusion controls, all through the API (the client developer's /play/ links here)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.urls import reverse

from kit.csp import with_strict_csp


def limits_page(request: HttpRequest) -> HttpResponse:
    """Signed in by the HttpOnly cookie of the /play/ pages (docs/client.md); under their strict CSP."""
    config = {"csrf": get_token(request), "session_url": reverse("play-session")}
    return with_strict_csp(request, render(request, "play/limits.html", {"config": config}))
