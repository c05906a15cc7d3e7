"""The client's real address behind the buffering proxy (docs/operations.md, "The proxy"), trusted only from it.

nginx (docker/nginx/) is the edge: it sets ``X-Real-IP`` to the address it saw, overwriting whatever a client
sent. With ``settings.TRUSTED_PROXIES`` set (addresses or networks, the proxy's), a request that comes from one of
them has its ``REMOTE_ADDR`` replaced by that header; from anywhere else ``X-Real-IP`` and ``X-Forwarded-For`` are
dropped, so a client that reaches the servers directly cannot choose the address that the throttles and the
sign-in lockout count it under. With it empty nothing is changed (``THROTTLE_NUM_PROXIES`` then decides).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable
from functools import cache
from types import SimpleNamespace
from typing import Any

from asgiref.sync import iscoroutinefunction
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.decorators import sync_and_async_middleware
from rest_framework.throttling import BaseThrottle

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@cache
def _networks(spec: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(item.strip(), strict=False) for item in spec if item.strip())


def _address(value: str | None) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address((value or "").strip())
    except ValueError:
        return None


def real_client_address(meta: dict[str, Any]) -> str | None:
    """The address to count the request under: ``X-Real-IP`` from a trusted proxy, else the peer's own."""
    peer = _address(meta.get("REMOTE_ADDR"))
    trusted = _networks(tuple(settings.TRUSTED_PROXIES))
    if peer is not None and any(peer in network for network in trusted):
        forwarded = _address(meta.get("HTTP_X_REAL_IP"))
        if forwarded is not None:
            return str(forwarded)
    return meta.get("REMOTE_ADDR")


def scope_client_address(scope: dict[str, Any]) -> str:
    """The client address of an ASGI connection (a WebSocket) under the rule HTTP requests follow: ``X-Real-IP``
    from ``TRUSTED_PROXIES``, else DRF's ``get_ident`` (``X-Forwarded-For`` with ``THROTTLE_NUM_PROXIES``), else
    the peer's own; ``""`` when there is none."""
    headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope.get("headers", ())}
    client = scope.get("client")
    meta: dict[str, Any] = {"REMOTE_ADDR": str(client[0]) if client else ""}
    if "x-real-ip" in headers:
        meta["HTTP_X_REAL_IP"] = headers["x-real-ip"]
    if settings.TRUSTED_PROXIES:
        return str(real_client_address(meta) or "")
    forwarded = {"x-forwarded-for": headers["x-forwarded-for"]} if "x-forwarded-for" in headers else {}
    request = SimpleNamespace(META=meta, headers=forwarded)  # what get_ident reads of a request
    return str(BaseThrottle().get_ident(request) or "")  # type: ignore[arg-type]


def _rewrite(request: HttpRequest) -> None:
    if not settings.TRUSTED_PROXIES:
        return
    address = real_client_address(request.META)
    request.META.pop("HTTP_X_FORWARDED_FOR", None)
    request.META.pop("HTTP_X_REAL_IP", None)
    if address is not None:
        request.META["REMOTE_ADDR"] = address


@sync_and_async_middleware
def trusted_proxy_middleware(
    get_response: Callable[[HttpRequest], Any],
) -> Callable[[HttpRequest], HttpResponse | Awaitable[HttpResponse]]:
    if iscoroutinefunction(get_response):

        async def async_middleware(request: HttpRequest) -> HttpResponse:
            _rewrite(request)
            return await get_response(request)  # type: ignore[no-any-return]

        return async_middleware

    def middleware(request: HttpRequest) -> HttpResponse:
        _rewrite(request)
        return get_response(request)  # type: ignore[no-any-return]

    return middleware
