"""What a table is worth over HTTP (API.md v1.3): ``rtp`` in the table view, the lobby and ``POST /tables/rtp``,
one record (``tables.worth.TableWorth``) on every surface, equal to the exact engine's figures for a house bank and
to the lab's simulation for a player bank; the guard's refusals (``400 rules_refused``) with the operator's limits.

The suite's settings open the limits (casino/settings_test.py); the tests of the guard set the production
defaults (``production_limits``)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gamemath.ruleset import resolve_rules
from gamemath.worth import house_worth
from lab.models import DONE, HouseEdge
from lab.services import compute, house_edge_key
from rules import make_table_config
from tables import worth as worth_module
from tables.models import Table
from tables.worth import decimal
from tests.support.api_helpers import assert_error, field_errors, ledger_state
from tests.support.game_helpers import ok

pytestmark = pytest.mark.django_db(transaction=True)

RTP_KEYS = {"best_play", "flat", "method", "margin", "assumptions"}


def body(**changes: Any) -> dict[str, Any]:
    table = {"name": "Priced", "preset": "spanish", "min_bet": 5, "max_bet": 10, "max_seats": 4, "bank": "house"}
    return table | changes


def exact_rtp(data: dict[str, Any]) -> dict[str, Any]:
    """The rtp the API must show for a house-banked body: the engine's own figures, as decimal strings."""
    rules = resolve_rules(data["preset"], data.get("rules"))
    figure = house_worth(rules, min_bet=data["min_bet"], max_bet=data["max_bet"], fixed_stake=data.get("fixed_stake"))
    return {
        "best_play": decimal(figure.best_play),
        "flat": decimal(figure.flat),
        "method": "exact",
        "margin": "0",
        "assumptions": list(figure.assumptions),
    }


@pytest.fixture
def production_limits(settings: Any) -> None:
    """The defaults of casino/settings.py (the suite's own settings open the limits)."""
    settings.MIN_RTP = "0.85"
    settings.MAX_RTP = "0.985"


def test_a_house_table_shows_one_exact_figure_in_the_price_the_answer_the_view_and_the_lobby(as_staff, as_player):
    data = body(rules={"tie_rule": "push"})
    tables_before = Table.objects.count()
    priced = ok(as_staff.post("/api/v1/tables/rtp", data, format="json"))
    assert set(priced) == {"rtp"} and Table.objects.count() == tables_before  # priced, nothing created
    assert priced["rtp"] == exact_rtp(data)
    created = ok(as_staff.post("/api/v1/tables", data, format="json"), 201)
    view = ok(as_player.get(f"/api/v1/tables/{created['id']}"))
    lobby = ok(as_player.get("/api/v1/tables"))["results"]
    row = next(r for r in lobby if r["id"] == created["id"])
    assert created["rtp"] == view["rtp"] == row["rtp"] == priced["rtp"]
    assert set(view["rtp"]) == RTP_KEYS


@pytest.mark.parametrize(
    "data",
    [
        body(preset="classic", min_bet=5, max_bet=50),
        body(preset="italian", min_bet=10, max_bet=30, rules={"banker_stands_at_hp": 12}),
        body(preset="hungarian", min_bet=10, max_bet=10, fixed_stake=10),
        body(preset="classic", rules={"bet_timing": "at_turn_after_peek"}, min_bet=1, max_bet=10),
    ],
)
def test_every_house_preset_is_priced_exactly(as_staff, data):
    assert ok(as_staff.post("/api/v1/tables/rtp", data, format="json"))["rtp"] == exact_rtp(data)


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"min_bet": None}, "min_bet"),
        ({"max_bet": 2, "min_bet": 5}, "max_bet"),
        ({"preset": "poker"}, "preset"),
        ({"bank": "nobody"}, "bank"),
        ({"surprise": 1}, "surprise"),
        ({"fixed_stake": 5}, "fixed_stake"),
    ],
)
def test_a_bad_body_is_the_contracts_400_naming_the_field(as_staff, changes, field):
    data = {k: v for k, v in body(**changes).items() if v is not None}
    assert field in field_errors(as_staff.post("/api/v1/tables/rtp", data, format="json"))


def test_a_bad_toggle_is_named_under_rules(as_staff):
    errors = field_errors(as_staff.post("/api/v1/tables/rtp", body(rules={"tie_rule": "coin_toss"}), format="json"))
    assert "tie_rule" in errors["rules"]


def test_only_staff_may_price_a_table(as_player, anon):
    assert_error(as_player.post("/api/v1/tables/rtp", body(), format="json"), 403, "forbidden")
    assert_error(anon.post("/api/v1/tables/rtp", body(), format="json"), 401, "not_authenticated")


def test_a_player_bank_shows_flat_null_until_simulated_then_the_labs_figure(as_staff, as_player, settings, monkeypatch):
    settings.HOUSE_EDGE_HANDS = 2_000
    monkeypatch.setattr(worth_module, "_PENDING_TTL_S", 0.0)  # read the lab's row on every view
    data = body(preset="classic", bank="player", min_bet=5, max_bet=50)
    table = ok(as_staff.post("/api/v1/tables", data, format="json"), 201)
    assert table["rtp"] == {
        "best_play": None,
        "flat": None,
        "method": "simulated",
        "margin": None,
        "assumptions": [worth_module.PENDING_WORDS["computing"]],
    }
    config = make_table_config(
        preset="classic", min_bet=5, max_bet=50, max_seats=4, bank="player", overrides=data.get("rules")
    )
    row = HouseEdge.objects.get(key=house_edge_key(config))  # asked for when the table was created
    compute(row.key)  # what the lab's Celery task runs
    row.refresh_from_db()
    assert row.status == DONE
    view = ok(as_player.get(f"/api/v1/tables/{table['id']}"))["rtp"]
    assert view["best_play"] is None and view["method"] == "simulated"
    assert view["flat"] == decimal(1 - Fraction(row.edge)) and view["margin"] == decimal(Fraction(row.half_width))
    assert "2,000 rounds of 4 punters" in view["assumptions"][0]
    lobby = ok(as_player.get("/api/v1/tables"))["results"]
    priced = ok(as_staff.post("/api/v1/tables/rtp", data, format="json"))["rtp"]
    assert next(r for r in lobby if r["id"] == table["id"])["rtp"] == view == priced


# --- the guard ---------------------------------------------------------------------------------------------------


def _refused(client: Any, data: dict[str, Any]) -> dict[str, Any]:
    before, tables = ledger_state(), Table.objects.count()
    details = assert_error(client.post("/api/v1/tables", data, format="json"), 400, "rules_refused")
    assert ledger_state() == before and Table.objects.count() == tables, "a refused table left something behind"
    assert set(details) == {"reason", "rtp", "limit", "max_bet_allowed"}
    assert details["rtp"] == ok(client.post("/api/v1/tables/rtp", data, format="json"))["rtp"]
    return details


def test_a_classic_house_standing_at_5_pays_less_than_the_minimum(as_staff, production_limits):
    details = _refused(as_staff, body(preset="classic", min_bet=5, max_bet=5))
    assert details["reason"] == "below_minimum" and details["limit"] == "0.8500"
    assert Fraction(details["rtp"]["flat"]) < Fraction("0.85") and details["max_bet_allowed"] is None


def test_a_peek_table_a_punter_beats_is_refused_with_the_largest_max_bet_that_passes(as_staff, production_limits):
    details = _refused(as_staff, body(preset="spanish", min_bet=5, max_bet=50))
    assert details["reason"] == "player_advantage" and details["limit"] == "0.9850"
    assert Fraction(details["rtp"]["best_play"]) > Fraction("0.985")
    allowed = details["max_bet_allowed"]
    assert isinstance(allowed, int) and 5 <= allowed < 50
    table = ok(as_staff.post("/api/v1/tables", body(preset="spanish", min_bet=5, max_bet=allowed), format="json"), 201)
    assert Fraction(table["rtp"]["best_play"]) <= Fraction("0.985")
    over = _refused(as_staff, body(preset="spanish", min_bet=5, max_bet=allowed + 1))
    assert over["reason"] == "player_advantage" and over["max_bet_allowed"] == allowed


def test_the_classic_table_with_the_peek_override_is_refused_too(as_staff, production_limits):
    data = body(preset="classic", rules={"bet_timing": "at_turn_after_peek", "banker_stands_at_hp": 8}, max_bet=50)
    assert _refused(as_staff, data)["reason"] in ("player_advantage", "below_minimum")


def test_the_limits_are_the_operators_and_a_player_bank_is_never_refused(as_staff, settings, production_limits):
    ok(as_staff.post("/api/v1/tables", body(preset="classic", bank="player", max_bet=500), format="json"), 201)
    settings.MIN_RTP = "0.80"
    ok(as_staff.post("/api/v1/tables", body(preset="classic", max_bet=5), format="json"), 201)


def test_the_refusal_is_said_in_the_callers_language_with_the_same_details(as_staff, production_limits):
    data = body(preset="classic", min_bet=5, max_bet=5)
    english = as_staff.post("/api/v1/tables", data, format="json", HTTP_ACCEPT_LANGUAGE="en")
    details = assert_error(english, 400, "rules_refused")
    for language in ("it", "es", "hu"):
        answer = as_staff.post("/api/v1/tables", data, format="json", HTTP_ACCEPT_LANGUAGE=language)
        assert assert_error(answer, 400, "rules_refused") == details
        assert answer.json()["error"]["message"] != english.json()["error"]["message"]


def test_the_service_every_path_creates_through_refuses_too(production_limits):
    """``tables.services.table_create`` is the one way a table is made (API, admin, demo seeder, bench, soak)."""
    from tables import services
    from tables.errors import RulesRefused
    from tables.table_spec import TableSpec

    with pytest.raises(RulesRefused) as refused:
        services.table_create(operator=None, name="x", spec=TableSpec.from_data(body(preset="classic", max_bet=5)))
    assert refused.value.details["reason"] == "below_minimum" and not Table.objects.exists()


@given(st.fractions(min_value=-2, max_value=2))
def test_a_figure_is_written_with_four_places_rounded_half_to_even(value):
    text = decimal(value)
    assert text is not None
    assert abs(Fraction(text) - value) <= Fraction(1, 20000)
    if value != 0:
        assert len(text.split(".")[1]) == 4
    assert Fraction(text) == Fraction(round(value * 10_000), 10_000)
