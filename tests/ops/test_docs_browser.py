"""The API docs work with no network but the server: Swagger UI and ReDoc load only our own static files
(drf-spectacular-sidecar), proven in a real headless browser whose every request elsewhere is blocked."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.admin.test_admin_browser import _shot

pytestmark = pytest.mark.django_db(transaction=True)


def _offline(page: Any, live_server: Any) -> tuple[list[str], list[str]]:
    """Let the browser reach the test server only; return (requests served, requests blocked)."""
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


def test_swagger_ui_renders_every_operation_offline(page, live_server):
    served, blocked = _offline(page, live_server)
    response = page.goto(f"{live_server.url}/api/docs/")
    assert "default-src 'self'" in response.headers["content-security-policy"]
    page.wait_for_selector(".opblock", timeout=20_000)
    paths = page.locator(".opblock-summary-path").all_inner_texts()
    assert len(paths) >= 15
    assert any("/api/v1/tables/{table_id}/actions" in p.replace("\u200b", "") for p in paths)
    assert "Seven and a Half casino API" in page.locator(".info .title").inner_text()
    assert blocked == [], f"the docs page reached out of the server: {blocked}"
    assert any("/static/drf_spectacular_sidecar/swagger-ui-dist/" in url for url in served)
    page.locator(".opblock-summary-path").first.click()  # an operation opens (its schema came from /api/schema/)
    page.wait_for_selector(".opblock-body")
    _shot(page, "api_docs_offline.png")


def test_redoc_renders_the_operations_offline(page, live_server):
    served, blocked = _offline(page, live_server)
    response = page.goto(f"{live_server.url}/api/redoc/")
    assert "default-src 'self'" in response.headers["content-security-policy"]
    page.wait_for_selector("[data-section-id^='operation/']", state="attached", timeout=30_000)
    assert page.locator("[data-section-id^='operation/']").count() >= 15
    assert blocked == [], f"the ReDoc page reached out of the server: {blocked}"
    assert any("/static/drf_spectacular_sidecar/redoc/" in url for url in served)
    _shot(page, "api_redoc_offline.png")
