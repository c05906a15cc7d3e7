"""Sign-in lockout (django-axes with the handler below): staff and players, admin login and ``POST /auth/token``
alike (API.md v1.2 "Conventions", failed sign-ins).

Every password check goes through Django's ``authenticate``, whose first backend is axes's. Failures are counted
(axes's access attempts, one row per username, address and user agent) per account and address pair, and per
account over all addresses, over the last ``LOGIN_FAILURE_WINDOW_S``:

- ``LOGIN_FAILURE_LIMIT`` failures of one pair lock that account *from that address*;
- ``LOGIN_ACCOUNT_FAILURE_LIMIT`` failures of one account, from anywhere, lock it from every address;
- a lock lasts ``LOGIN_LOCKOUT_BASE_S`` seconds, doubled by every failure past the limit (up to
  ``LOGIN_LOCKOUT_MAX_S``): the delay grows with further failures;
- while locked the password is not even checked (the right one included), and nothing is counted;
- a success clears only its own pair (never the failures from other addresses), so an insider who signs in
  between guesses gains nothing; failures never lock other accounts at the same address (players behind one NAT).

An operator unlocks an account in the admin (*Axes > Access attempts*: the action "Unlock sign-in for these
usernames", written to the admin's history) or with ``manage.py axes_reset_username <username>``. See
docs/security.md.

The callables below are axes settings: the client address (the one the throttles use), the username (lower
case: usernames are unique regardless of case, so ``ALICE`` counts against ``alice``), and the lockout answer (the
API's error body on ``/api/``, with ``Retry-After`` and ``details.retry_after``).
"""

from __future__ import annotations

import ipaddress
import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from axes.handlers.database import AxesDatabaseHandler
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib import admin
from django.db.models import Max, QuerySet, Sum
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone
from rest_framework.throttling import BaseThrottle

from kit.api_errors import error_body
from kit.hashing import HashingBusy
from kit.throttling import AUTH_THROTTLES

LOCKED_MESSAGE = "Too many attempts, try again in {minutes} minutes."


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


@dataclass(frozen=True, slots=True)
class Lock:
    """A sign-in refused for ``seconds`` more; ``everywhere`` when the account-wide count locked it."""

    seconds: int
    everywhere: bool


def lock_delay(failures_past_limit: int) -> float:
    """Seconds a lock lasts after ``failures_past_limit`` failures beyond the limit (0: the one that reached it)."""
    base = float(settings.LOGIN_LOCKOUT_BASE_S)
    return min(float(settings.LOGIN_LOCKOUT_MAX_S), base * 2 ** min(failures_past_limit, 40))


def _failures(rows: QuerySet[AccessAttempt]) -> tuple[int, datetime | None]:
    counted = rows.aggregate(n=Sum("failures_since_start"), last=Max("attempt_time"))
    return int(counted["n"] or 0), counted["last"]


def lock_of(username: str | None, address: str | None) -> Lock | None:
    """The lock on ``username`` signing in from ``address`` now, or None. Two queries at most."""
    if not username:
        return None
    now = timezone.now()
    recent = AccessAttempt.objects.filter(
        username=username, attempt_time__gte=now - timedelta(seconds=settings.LOGIN_FAILURE_WINDOW_S)
    )
    remaining = 0.0
    everywhere = False
    account, account_last = _failures(recent)
    if account >= settings.LOGIN_ACCOUNT_FAILURE_LIMIT and account_last is not None:
        remaining = (account_last - now).total_seconds() + lock_delay(account - settings.LOGIN_ACCOUNT_FAILURE_LIMIT)
        everywhere = remaining > 0
    if address is not None and account >= settings.LOGIN_FAILURE_LIMIT:
        pair, pair_last = _failures(recent.filter(ip_address=address))
        if pair >= settings.LOGIN_FAILURE_LIMIT and pair_last is not None:
            pair_remaining = (pair_last - now).total_seconds() + lock_delay(pair - settings.LOGIN_FAILURE_LIMIT)
            remaining = max(remaining, pair_remaining)
    return Lock(math.ceil(remaining), everywhere) if remaining > 0 else None


class PairLockoutHandler(AxesDatabaseHandler):
    """axes's database handler, locking per account and address pair and per account (module docstring)."""

    def _lock(self, request: HttpRequest, credentials: dict[str, Any] | None) -> Lock | None:
        return lock_of(login_username(request, credentials), getattr(request, "axes_ip_address", None))

    def is_locked(self, request: HttpRequest, credentials: dict[str, Any] | None = None) -> bool:
        return self._lock(request, credentials) is not None

    def get_failures(self, request: HttpRequest, credentials: dict[str, Any] | None = None) -> int:
        """axes asks this after recording a failure: at the limit when that failure locked the sign-in."""
        return settings.AXES_FAILURE_LIMIT if self.is_locked(request, credentials) else 0

    def reset_user_attempts(self, request: HttpRequest, credentials: dict[str, Any] | None = None) -> int:
        """A success clears the failures of its own pair only."""
        return clear_pair(login_username(request, credentials), getattr(request, "axes_ip_address", None))


def clear_pair(username: str | None, address: str | None) -> int:
    """Forget the failures of ``username`` from ``address`` (after a successful sign-in from there)."""
    if not username or address is None:
        return 0
    deleted, _ = AccessAttempt.objects.filter(username=username, ip_address=address).delete()
    return deleted


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: dict[str, Any] | None = None
) -> HttpResponse:
    """429 for a locked sign-in: the API's ``throttled`` error body on ``/api/``, a plain page elsewhere; both
    say in how many minutes to try again (``Retry-After`` in seconds)."""
    lock = lock_of(login_username(request, credentials or getattr(request, "axes_credentials", None)),
                   getattr(request, "axes_ip_address", None))  # fmt: skip
    seconds = lock.seconds if lock is not None else int(settings.LOGIN_LOCKOUT_BASE_S)
    message = LOCKED_MESSAGE.format(minutes=max(1, math.ceil(seconds / 60)))
    headers = {"Retry-After": str(seconds)}
    if request.path_info.startswith("/api/"):
        details = {"retry_after": seconds, "locked": "account" if lock is not None and lock.everywhere else "pair"}
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
    try:
        return admin.site.login(request, extra_context)
    except HashingBusy as busy:
        return HttpResponse(
            str(busy.detail), status=429, content_type="text/plain; charset=utf-8", headers={"Retry-After": "1"}
        )
