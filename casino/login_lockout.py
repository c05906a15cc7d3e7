"""Sign-in lockout (django-axes): staff and players, admin login and ``POST /auth/token`` alike.

Every password check goes through Django's ``authenticate``, and the first authentication backend is axes's:
after ``settings.AXES_FAILURE_LIMIT`` failed sign-ins for one username (from anywhere) or from one client address
(for any usernames), further attempts are refused, the right password included, until the lock is lifted: by
the cool-off (``LOGIN_LOCKOUT_COOLOFF_S``; 0 = never by itself) or by an operator (delete the row on the admin's
"Access attempts" page, or ``manage.py axes_reset_username <username>`` / ``axes_reset_ip <address>`` /
``axes_reset``). See docs/security.md.

The three callables below are axes settings: the client address (the one the throttles use, trusting
X-Forwarded-For only behind the configured proxies), the username (lower case: usernames are unique regardless
of case, so ``ALICE`` counts against ``alice``), and the lockout answer (the API's error body on ``/api/``).
"""

from __future__ import annotations

import ipaddress
import math
from typing import Any

from django.conf import settings
from django.contrib import admin
from django.http import HttpRequest, HttpResponse, JsonResponse
from rest_framework.throttling import BaseThrottle

from casino.api.errors import error_body
from casino.api.throttling import AUTH_THROTTLES

LOCKED_MESSAGE = (
    "Too many failed sign-ins for this username or from this address: signing in is locked. "
    "An operator can unlock it{wait}."
)


def client_ip(request: HttpRequest) -> str | None:
    """The client's address as the API throttles see it (``REST_FRAMEWORK["NUM_PROXIES"]``), or ``None`` when
    there is no valid one (a request built in code, such as a test's ``force_login``)."""
    for candidate in (BaseThrottle().get_ident(request), request.META.get("REMOTE_ADDR")):  # type: ignore[arg-type]
        try:
            return str(ipaddress.ip_address(str(candidate).strip()))
        except ValueError:
            continue
    return None


def login_username(request: HttpRequest, credentials: dict[str, Any] | None) -> str | None:
    """The username tried, in lower case."""
    username = (credentials or {}).get("username")
    if username is None:
        username = request.POST.get("username") if request.method == "POST" else None
    return username.lower() if isinstance(username, str) else None


def cooloff_seconds() -> int | None:
    cooloff = settings.AXES_COOLOFF_TIME
    return int(cooloff.total_seconds()) if cooloff else None


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: dict[str, Any] | None = None
) -> HttpResponse:
    """429 for a locked sign-in: the API's ``throttled`` error body on ``/api/``, a plain page elsewhere."""
    seconds = cooloff_seconds()
    wait = f", or try again in {math.ceil(seconds / 60)} minutes" if seconds else ""
    message = LOCKED_MESSAGE.format(wait=wait)
    headers = {"Retry-After": str(seconds)} if seconds else {}
    if request.path_info.startswith("/api/"):
        details = {"retry_after": seconds} if seconds else {}
        return JsonResponse(error_body("throttled", message, details), status=429, headers=headers)
    return HttpResponse(message, status=429, content_type="text/plain; charset=utf-8", headers=headers)


#: the longest username there is (``auth.User.username``; the API's sign-in has the same bound)
USERNAME_MAX_LENGTH = 150


def admin_login(request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
    """The admin's login page behind the per-address throttles of ``POST /auth/token`` (the same scopes, so the
    same counters): a login attempt there counts against the address's sign-in allowance on both."""
    if request.method == "POST" and len(request.POST.get("username", "")) > USERNAME_MAX_LENGTH:
        # Django's login form does not enforce the username's length, and the failure record's column would
        # refuse it (a 500 under DEBUG showed the environment): refused here, as the API's sign-in refuses it
        return HttpResponse(
            f"A username has at most {USERNAME_MAX_LENGTH} characters.",
            status=400,
            content_type="text/plain; charset=utf-8",
        )
    if request.method == "POST":
        for throttle_class in AUTH_THROTTLES:
            throttle = throttle_class()
            if not throttle.allow_request(request, None):  # type: ignore[arg-type]
                wait = max(1, math.ceil(throttle.wait() or 1))
                message = f"Too many sign-in attempts from this address: try again in {wait} seconds."
                return HttpResponse(
                    message, status=429, content_type="text/plain; charset=utf-8", headers={"Retry-After": str(wait)}
                )
    return admin.site.login(request, extra_context)
