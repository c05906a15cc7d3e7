"""What a table is worth, in the admin: the create form refuses what the API refuses (``rules_refused``), a
table's rules and limits cannot be changed afterwards by any form, the table page shows the API's own ``rtp``,
and the list, its filter, the dashboard and the metric flag the house tables already outside the limits.

The admin in a real browser (the price step of the create form, the table page) is
``test_admin_rtp_browser.py``."""

from __future__ import annotations

import re
from typing import Any

import pytest

from rules import make_table_config
from tables.models import Table
from tables.worth import worth_of
from tests.support.play import make_table, state_of

pytestmark = pytest.mark.django_db

FORM = {
    "name": "Sala Madrid",
    "preset": "spanish",
    "bank": "house",
    "min_bet": "5",
    "max_bet": "50",
    "max_seats": "4",
    "fixed_stake": "",
    "turn_timeout_s": "30",
    "betting_timeout_s": "30",
}


@pytest.fixture
def production_limits(settings: Any) -> None:
    settings.MIN_RTP = "0.85"
    settings.MAX_RTP = "0.985"


def _form_errors(response: Any) -> dict[str, list[str]]:
    assert response.status_code == 200, response.status_code
    return {k: [str(m) for m in v] for k, v in response.context["adminform"].form.errors.items()}


def test_the_create_form_refuses_a_table_a_punter_beats_naming_the_largest_max_bet(as_operator, production_limits):
    errors = _form_errors(as_operator.post("/admin/tables/table/add/", FORM))
    assert not Table.objects.exists()
    (message,) = errors["max_bet"]
    assert "rules_refused, player_advantage" in message
    allowed = int(re.search(r"the largest max_bet that passes is (\d+)", message).group(1))
    ok = as_operator.post("/admin/tables/table/add/", FORM | {"max_bet": str(allowed)})
    assert ok.status_code == 302 and Table.objects.get().max_bet == allowed


def test_the_create_form_refuses_a_table_below_the_minimum(as_operator, production_limits):
    errors = _form_errors(as_operator.post("/admin/tables/table/add/", FORM | {"preset": "classic"}))
    assert "rules_refused, below_minimum" in errors["__all__"][0] and not Table.objects.exists()


def test_no_form_changes_a_tables_limits_or_rules_once_created(as_operator):
    """The attack: post the create form's fields to a table's change form. Only the name changes; the rules and
    limits stay those of its first event, so a table cannot be moved outside the limits after the guard passed."""
    table = make_table("spanish", bank="house", min_bet=5, max_bet=10)
    before = state_of(table.pk).config
    hostile = FORM | {"name": "renamed", "min_bet": "1", "max_bet": "100000", "bank": "house", "preset": "classic"}
    hostile |= {"rule_banker_stands_at_hp": "8", "rule_tie_rule": "push"}
    response = as_operator.post(f"/admin/tables/table/{table.pk}/change/", hostile)
    assert response.status_code == 302
    table.refresh_from_db()
    assert table.name == "renamed" and (table.min_bet, table.max_bet, table.preset) == (5, 10, "spanish")
    assert state_of(table.pk).config == before


def test_the_table_page_shows_the_apis_record(as_operator, client_for, operator):
    table = make_table("italian", bank="house", min_bet=5, max_bet=10)
    page = as_operator.get(f"/admin/tables/table/{table.pk}/change/").content.decode()
    rtp = client_for(operator).get(f"/api/v1/tables/{table.pk}").json()["rtp"]
    shown = re.search(r'data-best-play="([^"]*)" data-flat="([^"]*)"\s+data-margin="([^"]*)"', page)
    assert shown is not None and shown.groups() == (rtp["best_play"], rtp["flat"], rtp["margin"])
    assert 'data-method="exact"' in page and "House edge (default strategies)" not in page
    for words in rtp["assumptions"]:
        assert words.replace("'", "&#x27;") in page


def test_tables_outside_the_limits_are_flagged_in_the_list_the_filter_the_dashboard_and_the_metric(
    as_operator, settings, client
):
    inside = make_table("classic", bank="house", rules={"banker_stands_at_hp": 8})
    below = make_table("classic", bank="house")  # opened while the limits were open (the suite's settings)
    beaten = make_table("spanish", bank="house", min_bet=5, max_bet=50)
    player = make_table("classic", bank="player")
    settings.MIN_RTP, settings.MAX_RTP = "0.85", "0.985"  # the operator sets the limits afterwards
    listing = as_operator.get("/admin/tables/table/").content.decode()
    rows = _rows(listing)
    assert 'data-outside="true" data-reason="below_minimum"' in rows[below.pk]
    assert 'data-outside="true" data-reason="player_advantage"' in rows[beaten.pk]
    assert 'data-outside="false"' in rows[inside.pk] and 'data-outside="true"' not in rows[player.pk]
    filtered = _rows(as_operator.get("/admin/tables/table/?rtp=outside").content.decode())
    assert set(filtered) == {below.pk, beaten.pk}
    home = as_operator.get("/admin/").content.decode()
    assert re.search(r'id="tile-rtp"><div class="figure" data-value="2">', home)
    settings.METRICS_TOKEN, settings.METRICS_ALLOW_IPS = "rtp-test", []
    scrape = client.get("/metrics", HTTP_AUTHORIZATION="Bearer rtp-test").content.decode()
    assert 'casino_tables_outside_rtp_limits{reason="below_minimum"} 1.0' in scrape
    assert 'casino_tables_outside_rtp_limits{reason="player_advantage"} 1.0' in scrape


def _rows(listing: str) -> dict[int, str]:
    """The admin list's rows by table id."""
    found = {}
    for row in re.findall(r"<tr>.*?</tr>", listing, re.S):
        link = re.search(r"/admin/tables/table/(\d+)/change/", row)
        if link:
            found[int(link.group(1))] = row
    return found


def test_the_demo_tables_pass_the_default_limits(production_limits):
    from devtools.demo import DEMO_TABLES
    from tables.table_spec import TableSpec
    from tables.worth import judge

    for spec in DEMO_TABLES:
        config = TableSpec.from_data(spec).config()
        assert judge(config) is None, spec["name"]
    worth = worth_of(make_table_config(preset="classic", min_bet=5, max_bet=50, max_seats=6, bank="house"))
    assert worth.flat is not None and worth.flat < 0.85  # why the demo's house stands at 4, not at 5
