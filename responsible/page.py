"""The reference player page of responsible gaming, ``/play/limits/``: limits, pending raises, the reality check
and the break and self-exclusion controls, all through the API (the client developer's /play/ links here)."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.urls import reverse
from django.utils import translation

from kit.csp import with_strict_csp
from responsible.page_words import LIMIT_NAMES, exclusion_names, limits_words


def limits_page(request: HttpRequest) -> HttpResponse:
    """Signed in by the HttpOnly cookie of the /play/ pages (docs/client.md); under their strict CSP."""
    config = {
        "csrf": get_token(request),
        "session_url": reverse("play-session"),
        "language": translation.get_language() or settings.LANGUAGE_CODE,
        "words": limits_words(),
    }
    context = {
        "config": config,
        "languages": settings.LANGUAGES,
        "limit_names": [(value, str(name)) for value, name in LIMIT_NAMES.items()],
        "exclusion_names": exclusion_names(),
    }
    return with_strict_csp(request, render(request, "play/limits.html", context))
