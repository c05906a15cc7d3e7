"""Sign-in lockout (django-axes with the handler below): staff and players, admin login and ``POST /auth/token``
alike (API.md v1.2 "Conventions", failed sign-ins; issue #43).

Every password check goes through Django's ``authenticate``, whose first backend is axes's. Failures are counted
(axes's access attempts, one row per username, address and user agent) per account and address pair, per account
over all addresses, and per address over all accounts, over the last ``LOGIN_FAILURE_WINDOW_S``:

- ``LOGIN_FAILURE_LIMIT`` failures of one pair lock that account *from that address*;
- ``LOGIN_ACCOUNT_FAILURE_LIMIT`` failures of one account lock it from every address *but those it signed in from
  before* (its known addresses): strangers can slow a password guess down, never lock the owner out of the places
  he uses, and one guess per period by them keeps nothing locked for him;
- ``LOGIN_ADDRESS_FAILURE_LIMIT`` failures from one address, over all accounts, lock that address out of every
  account that is not known there: one address cannot try a few passwords at every account, while the players
  behind it (one NAT) who signed in from there before keep signing in;
- a lock lasts ``LOGIN_LOCKOUT_BASE_S`` seconds, doubled by every failure past the limit (up to
  ``LOGIN_LOCKOUT_MAX_S``): the delay grows with further failures;
- while locked the password is not even checked (the right one included), and nothing is counted;
- a success clears only its own pair (never the failures from other addresses), so an insider who signs in
  between guesses gains nothing; the pair's own count still locks a known address.

The known addresses are axes's access log (one row per successful sign-in: the admin's through axes's signal, the
API's and a registration's through :func:`remember_sign_in`), kept as long as that log is.

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
from datetime import timedelta
from typing import Any

from axes.handlers.database import AxesDatabaseHandler
from axes.models import AccessAttempt, AccessLog
from django.conf import settings
from django.contrib import admin
from django.db.models import Max, Q, Sum
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
    """A sign-in refused for ``seconds`` more; ``scope`` says which count locked it: ``"pair"`` (this account from
    this address), ``"account"`` (this account from every address it is not known at) or ``"address"`` (this
    address for every account not known there)."""

    seconds: int
    scope: str


def lock_delay(failures_past_limit: int) -> float:
    """Seconds a lock lasts after ``failures_past_limit`` failures beyond the limit (0: the one that reached it)."""
    base = float(settings.LOGIN_LOCKOUT_BASE_S)
    return min(float(settings.LOGIN_LOCKOUT_MAX_S), base * 2 ** min(failures_past_limit, 40))


def known_address(username: str, address: str) -> bool:
    """Whether ``username`` signed in successfully from ``address`` before (axes's access log)."""
    return AccessLog.objects.filter(ip_address=address, username__iexact=username).exists()


def lock_of(username: str | None, address: str | None) -> Lock | None:
    """The lock on ``username`` signing in from ``address`` now, or None. One query for the three counts; one
    more, whether the address is known, only when the account's or the address's count locks."""
    if not username:
        return None
    now = timezone.now()
    scopes = {"pair": (Q(username=username, ip_address=address), settings.LOGIN_FAILURE_LIMIT),
              "account": (Q(username=username), settings.LOGIN_ACCOUNT_FAILURE_LIMIT),
              "address": (Q(ip_address=address), settings.LOGIN_ADDRESS_FAILURE_LIMIT)}  # fmt: skip
    if address is None:
        del scopes["pair"], scopes["address"]
    aggregates: dict[str, Any] = {}
    for scope, (rows, _) in scopes.items():
        aggregates[f"{scope}_n"] = Sum("failures_since_start", filter=rows)
        aggregates[f"{scope}_last"] = Max("attempt_time", filter=rows)
    window = now - timedelta(seconds=settings.LOGIN_FAILURE_WINDOW_S)
    either = Q(username=username) | Q(ip_address=address) if address is not None else Q(username=username)
    counted = AccessAttempt.objects.filter(either, attempt_time__gte=window).aggregate(**aggregates)
    locks: list[Lock] = []
    for scope, (_, limit) in scopes.items():
        failures, last = int(counted[f"{scope}_n"] or 0), counted[f"{scope}_last"]
        if failures >= limit and last is not None:
            remaining = (last - now).total_seconds() + lock_delay(failures - limit)
            if remaining > 0:
                locks.append(Lock(math.ceil(remaining), scope))
    if address is not None and any(lock.scope != "pair" for lock in locks) and known_address(username, address):
        locks = [lock for lock in locks if lock.scope == "pair"]  # strangers never lock a known address out
    return max(locks, key=lambda lock: lock.seconds, default=None)


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


def remember_sign_in(request: HttpRequest, username: str) -> None:
    """A successful sign-in outside Django's ``login`` (an API token, a registration): written to axes's access log
    as the admin's are (which makes the address known for the account), and its own pair's failures cleared."""
    address = client_ip(request)
    AccessLog.objects.create(
        username=username,
        ip_address=address,
        user_agent=request.META.get("HTTP_USER_AGENT", "<unknown>")[:255],
        http_accept=request.META.get("HTTP_ACCEPT", "<unknown>")[:1025],
        path_info=request.path_info[:255],
    )
    clear_pair(username.lower(), address)


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
    if request.path_info.startswith(("/api/", "/play/")):  # the API and the pages' sign-in answer JSON
        details = {"retry_after": seconds, "locked": lock.scope if lock is not None else "pair"}
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
