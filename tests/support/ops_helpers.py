"""Helpers of the operations tests: a browser that may reach the test server only."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit


def offline(page: Any, live_server: Any) -> tuple[list[str], list[str]]:
    """Let the browser reach the test server only (every other request fails as with no network); return the
    lists of requests served and blocked, filled as the page loads."""
    server = urlsplit(live_server.url).netloc
    served: list[str] = []
    blocked: list[str] = []

    def route(request_route: Any) -> None:
        url = request_route.request.url
        if urlsplit(url).netloc == server:
            served.append(url)
            request_route.continue_()
        else:
            blocked.append(url)
            request_route.abort("internetdisconnected")

    page.context.route("**/*", route)
    return served, blocked
