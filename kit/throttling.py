"""Throttles: per client IP on the authentication endpoints, per user elsewhere.

Fixed-window counters in the default cache (Redis): one atomic ``INCR`` per request and scope, so concurrent
requests cannot slip past the limit the way DRF's read-modify-write history lists can. A client may get up to
twice a rate across a window boundary. Rates are read from ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` on
every request (settings come from the environment; tests override them), in DRF's notation ``"30/minute"``;
a rate of ``None`` turns the scope off. If the cache is unreachable the request is let through (and logged):
throttling protects the service, it must not take it down.

The client IP is DRF's ``get_ident`` (``REST_FRAMEWORK["NUM_PROXIES"]`` decides whether X-Forwarded-For is
trusted).
"""

from __future__ import annotations

import hashlib
import logging
import time
from typing import TYPE_CHECKING, ClassVar

from django.core.cache import cache
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

if TYPE_CHECKING:  # rest_framework.views imports the default throttles: no import cycle at run time
    from rest_framework.views import APIView

logger = logging.getLogger(__name__)

_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_rate(rate: str | None) -> tuple[int, int] | None:
    """``"30/minute"`` -> ``(30, 60)``; ``None`` -> ``None`` (unlimited)."""
    if rate is None:
        return None
    count, _, period = rate.partition("/")
    return int(count), _PERIODS[period.strip()[0].lower()]


class FixedWindowThrottle(BaseThrottle):
    """At most N requests per window of a scope's rate, per client (see :meth:`client`)."""

    scope: ClassVar[str]
    per_user: ClassVar[bool] = False

    def __init__(self) -> None:
        self._wait: float | None = None

    def client(self, request: Request) -> str:
        if self.per_user and request.user is not None and request.user.is_authenticated:
            return f"user:{request.user.pk}"
        return f"ip:{self.get_ident(request)}"

    def cache_key(self, client: str, window: int) -> str:
        digest = hashlib.sha256(client.encode()).hexdigest()[:24]
        return f"throttle:{self.scope}:{digest}:{window}"

    def allow_request(self, request: Request, view: APIView) -> bool:
        rate = parse_rate(api_settings.DEFAULT_THROTTLE_RATES.get(self.scope))
        if rate is None:
            return True
        limit, duration = rate
        now = time.time()
        window = int(now // duration)
        key = self.cache_key(self.client(request), window)
        try:
            cache.add(key, 0, timeout=duration + 1)
            count = cache.incr(key)
        except Exception:
            logger.warning("throttle %s: cache unavailable, request let through", self.scope, exc_info=True)
            return True
        if count <= limit:
            return True
        self._wait = (window + 1) * duration - now
        return False

    def wait(self) -> float | None:
        return self._wait


class AuthBurstThrottle(FixedWindowThrottle):
    """Register and token: a few requests per second per IP."""

    scope = "auth_burst"


class AuthSustainedThrottle(FixedWindowThrottle):
    """Register and token: tens of requests per minute per IP (slows password guessing)."""

    scope = "auth_sustained"


class UserBurstThrottle(FixedWindowThrottle):
    """Every other endpoint: per signed-in user (per IP for anonymous requests), per second."""

    scope = "user_burst"
    per_user = True


class UserSustainedThrottle(FixedWindowThrottle):
    """Every other endpoint: per signed-in user (per IP for anonymous requests), per minute."""

    scope = "user_sustained"
    per_user = True


AUTH_THROTTLES: list[type[BaseThrottle]] = [AuthBurstThrottle, AuthSustainedThrottle]
