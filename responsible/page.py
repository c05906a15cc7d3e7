"""The reference player page of responsible gaming, ``/play/limits/``: limits, pending raises, the reality check
and the break and self-exclusion controls, all through the API (the client developer's /play/ links here)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def limits_page(request: HttpRequest) -> HttpResponse:
    return render(request, "play/limits.html")
