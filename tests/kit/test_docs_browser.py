"""The API docs work with no network but the server: Swagger UI and ReDoc load only our own static files
(drf-spectacular-sidecar), proven in a real headless browser whose every request elsewhere is blocked."""

from __future__ import annotations

import pytest

from tests.backoffice.test_admin_browser import _shot
from tests.support.ops_helpers import offline

pytestmark = pytest.mark.django_db(transaction=True)


def test_swagger_ui_renders_every_operationoffline(page, live_server):
    served, blocked = offline(page, live_server)
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


def test_redoc_renders_the_operationsoffline(page, live_server):
    served, blocked = offline(page, live_server)
    response = page.goto(f"{live_server.url}/api/redoc/")
    assert "default-src 'self'" in response.headers["content-security-policy"]
    page.wait_for_selector("[data-section-id^='operation/']", state="attached", timeout=30_000)
    assert page.locator("[data-section-id^='operation/']").count() >= 15
    assert blocked == [], f"the ReDoc page reached out of the server: {blocked}"
    assert any("/static/drf_spectacular_sidecar/redoc/" in url for url in served)
    _shot(page, "api_redoc_offline.png")
