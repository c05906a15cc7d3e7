"""The admin's create form prices a table before it is saved, in a real browser (Debian's chromium): the figures
it shows are ``POST /api/v1/tables/rtp``'s, a table a punter beats is refused on saving with the largest
``max_bet`` that passes, and once saved with it the table's page shows the API's ``rtp`` of the table."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tables.models import Table
from tests.support.admin_fixtures import PASSWORD
from tests.support.game_helpers import ok

pytestmark = pytest.mark.django_db(transaction=True)


def _sign_in(page: Any, live_server: Any, username: str, landing: str) -> None:
    page.goto(f"{live_server.url}/admin/login/?next={landing}")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"**{landing}")


def _priced(page: Any) -> dict[str, str]:
    page.wait_for_selector("#rtp-price-result[data-state=priced]")
    return {
        "best_play": page.get_attribute("#rtp-price-result .rtp-best-play", "data-value"),
        "flat": page.get_attribute("#rtp-price-result .rtp-flat", "data-value"),
        "verdict": page.inner_text("#rtp-price-result .rtp-verdict"),
    }


def test_the_create_form_prices_refuses_and_saves_with_the_apis_figures(
    page, live_server, operator, client_for, settings
):
    settings.MIN_RTP, settings.MAX_RTP = "0.85", "0.985"
    api = client_for(operator)
    body = {"name": "Sala Roma", "preset": "italian", "bank": "house", "min_bet": 5, "max_bet": 50, "max_seats": 4}
    _sign_in(page, live_server, operator.username, "/admin/tables/table/add/")
    page.fill("#id_name", body["name"])
    page.select_option("#id_preset", "italian")
    page.select_option("#id_bank", "house")
    page.fill("#id_min_bet", "5")
    page.fill("#id_max_seats", "4")
    page.fill("#id_max_bet", "50")
    page.evaluate("document.getElementById('rtp-price-result').dataset.state = 'idle'")
    page.click("#rtp-price-button")
    shown = _priced(page)
    expected = ok(api.post("/api/v1/tables/rtp", body, format="json"))["rtp"]
    assert (shown["best_play"], shown["flat"]) == (expected["best_play"], expected["flat"])
    assert "Outside the casino's limits" in shown["verdict"]

    page.click("input[name=_save]")
    page.wait_for_selector(".errorlist")
    refusal = page.inner_text(".field-max_bet .errorlist")
    assert "rules_refused, player_advantage" in refusal and not Table.objects.exists()
    allowed = int(re.search(r"the largest max_bet that passes is (\d+)", refusal).group(1))

    page.evaluate("document.getElementById('rtp-price-result').dataset.state = 'idle'")
    page.fill("#id_max_bet", str(allowed))
    page.press("#id_max_bet", "Tab")  # the change event prices it again
    shown = _priced(page)
    expected = ok(api.post("/api/v1/tables/rtp", body | {"max_bet": allowed}, format="json"))["rtp"]
    assert (shown["best_play"], shown["flat"]) == (expected["best_play"], expected["flat"])
    assert shown["verdict"] == "Within the casino's limits."
    page.click("input[name=_save]")
    page.wait_for_url("**/admin/tables/table/")
    table = Table.objects.get()
    assert table.max_bet == allowed

    page.goto(f"{live_server.url}/admin/tables/table/{table.pk}/change/")
    figures = page.locator(".rtp-figures")
    view = ok(api.get(f"/api/v1/tables/{table.pk}"))["rtp"]
    assert view == expected
    assert figures.get_attribute("data-best-play") == view["best_play"]
    assert figures.get_attribute("data-flat") == view["flat"]
    assert figures.get_attribute("data-outside") == "false"
    assert f"({view['best_play']}, exact)" in page.inner_text(".rtp-best-play")
