"""Tables: creation (staff), the lobby, the table view per viewer, taking and leaving seats."""

from __future__ import annotations

from typing import Any

import pytest

from tables.models import Table
from tests.support.api_helpers import assert_error, field_errors, ledger_state
from tests.support.game_helpers import ok

pytestmark = pytest.mark.django_db

CLASSIC = {"name": "Blue room", "preset": "classic", "min_bet": 5, "max_bet": 50, "max_seats": 3, "bank": "player"}
TABLE_VIEW_KEYS = {
    "id", "name", "preset", "rules", "min_bet", "max_bet", "bank", "max_seats", "fixed_stake", "turn_timeout_s",
    "betting_timeout_s", "version", "phase", "seats", "next_seed_commitment", "hand", "last_hand", "you",
    "rtp",  # v1.3: what the table is worth (tests/tables/api/test_api_rtp.py checks its figures)
}  # fmt: skip


def create(client: Any, headers: dict[str, str] | None = None, **changes: Any) -> Any:
    return client.post("/api/v1/tables", {**CLASSIC, **changes}, format="json", **(headers or {}))


def sit(client: Any, table_id: int, **body: Any) -> Any:
    return client.post(f"/api/v1/tables/{table_id}/seats", body, format="json")


# --- creation -----------------------------------------------------------------------------------------------------


def test_staff_create_a_table_and_get_its_view(as_staff):
    body = ok(create(as_staff, rules={"tie_rule": "push"}, turn_timeout_s=20), 201)
    assert set(body) == TABLE_VIEW_KEYS
    assert body["name"] == "Blue room" and body["preset"] == "classic" and body["bank"] == "player"
    assert body["rules"]["tie_rule"] == "push" and body["rules"]["bet_timing"] == "before_deal"
    assert body["turn_timeout_s"] == 20 and body["betting_timeout_s"] == 30
    assert body["version"] == 3 and body["phase"] == "waiting" and body["seats"] == [] and body["hand"] is None
    assert len(body["next_seed_commitment"]) == 64  # hands 1 and 2's seeds are committed with the table (v1.2)
    no_limits = {"remaining_loss": None, "remaining_session_s": None, "reality_check_due": False}
    assert body["you"] == {"seat": None, "balance": 0, "legal_actions": [], "legal_hands": {}, "limits": no_limits}


def test_a_hungarian_house_table_with_a_fixed_stake(as_staff):
    body = ok(create(as_staff, preset="hungarian", min_bet=10, max_bet=20, fixed_stake=10, bank="house"), 201)
    assert body["fixed_stake"] == 10 and body["rules"]["stake_mode"] == "bank_fixed" and body["bank"] == "house"


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"name": ""}, "name"),
        ({"name": 7}, "name"),
        ({"preset": "poker"}, "preset"),
        ({"min_bet": "5"}, "min_bet"),
        ({"min_bet": 0}, "min_bet"),
        ({"max_bet": 4}, "max_bet"),
        ({"max_bet": 10**9}, "max_bet"),
        ({"max_seats": 9}, "max_seats"),
        ({"max_seats": 8, "bank": "house"}, "max_seats"),
        ({"bank": "casino"}, "bank"),
        ({"fixed_stake": 10}, "fixed_stake"),
        ({"preset": "hungarian", "min_bet": 10, "max_bet": 10}, "fixed_stake"),
        ({"preset": "hungarian", "min_bet": 10, "max_bet": 20, "fixed_stake": 30}, "fixed_stake"),
        ({"turn_timeout_s": 0}, "turn_timeout_s"),
        ({"betting_timeout_s": 3601}, "betting_timeout_s"),
        ({"colour": "green"}, "colour"),
        ({"rules": "fast"}, "rules"),
    ],
)
def test_an_invalid_table_is_400_naming_the_field(as_staff, changes, field):
    count = Table.objects.count()
    assert field in field_errors(create(as_staff, **changes))
    assert Table.objects.count() == count


@pytest.mark.parametrize(
    ("rules", "toggle"),
    [
        ({"no_such_toggle": True}, "no_such_toggle"),
        ({"reale_pays": 0}, "reale_pays"),
        ({"tie_rule": "coin_flip"}, "tie_rule"),
        ({"reale_pays": 3}, "reale_pays"),  # makes no sense without reale
        ({"banker_stands_at_hp": 9}, "banker_stands_at_hp"),  # only for a house bank
    ],
)
def test_an_invalid_toggle_is_named_under_rules(as_staff, rules, toggle):
    fields = field_errors(create(as_staff, rules=rules))
    assert toggle in fields["rules"]


def test_only_staff_create_tables(as_player, anon):
    assert_error(create(as_player), 403, "forbidden")
    assert_error(create(anon), 401, "not_authenticated")
    assert not Table.objects.exists()


def test_creating_a_table_is_idempotent(as_staff):
    key = {"HTTP_IDEMPOTENCY_KEY": "create-1"}
    first = create(as_staff, key)
    again = create(as_staff, key)
    assert first.status_code == again.status_code == 201 and first.json() == again.json()
    assert Table.objects.count() == 1
    assert_error(create(as_staff, key, name="Other"), 409, "idempotency_conflict")


# --- lobby and view ----------------------------------------------------------------------------------------------


def test_the_lobby_lists_every_table(as_staff, as_player, anon, player, fund):
    fund(player, 1_000)  # sitting needs the table's min_bet (API.md v1.2)
    first = ok(create(as_staff), 201)
    ok(create(as_staff, name="House", bank="house"), 201)
    ok(sit(as_player, first["id"]), 201)
    lobby = ok(as_player.get("/api/v1/tables"))
    assert lobby["count"] == 2 and lobby["next"] is None
    row = lobby["results"][0]
    assert set(row.pop("rtp")) == {"best_play", "flat", "method", "margin", "assumptions"}  # v1.3 (test_api_rtp)
    assert row == {
        "id": first["id"],
        "name": "Blue room",
        "preset": "classic",
        "min_bet": 5,
        "max_bet": 50,
        "bank": "player",
        "seats_taken": 1,
        "max_seats": 3,
        "phase": "waiting",
    }
    assert lobby["results"][1]["bank"] == "house"
    assert_error(anon.get("/api/v1/tables"), 401, "not_authenticated")
    assert_error(as_player.get("/api/v1/tables?page=9"), 404, "not_found")


def test_the_view_of_a_seated_player_a_spectator_and_staff(as_staff, make_user, client_for, fund):
    table = ok(create(as_staff), 201)
    players = [make_user("v") for _ in range(2)]
    for user in players:
        fund(user, 500)
        ok(sit(client_for(user), table["id"]), 201)
    seated = ok(client_for(players[0]).get(f"/api/v1/tables/{table['id']}"))
    assert seated["you"]["seat"] == 1 and seated["you"]["balance"] == 500
    assert seated["phase"] == "betting" and seated["hand"]["number"] == 1
    assert seated["hand"]["id"] is not None and len(seated["hand"]["seed_commitment"]) == 64
    assert seated["hand"]["server_seed"] is None and seated["hand"]["deck"] is None
    assert [s["seat"] for s in seated["seats"]] == [1, 2] and sum(s["is_banker"] for s in seated["seats"]) == 1
    spectator = ok(client_for(make_user("spec")).get(f"/api/v1/tables/{table['id']}"))
    no_limits = {"remaining_loss": None, "remaining_session_s": None, "reality_check_due": False}
    assert spectator["you"] == {"seat": None, "balance": 0, "legal_actions": [], "legal_hands": {}, "limits": no_limits}
    staff_view = ok(as_staff.get(f"/api/v1/tables/{table['id']}"))
    assert staff_view["you"]["seat"] is None and staff_view["hand"]["deck"] is None


def test_an_unknown_table_is_404(as_player, anon):
    assert_error(as_player.get("/api/v1/tables/424242"), 404, "not_found")
    assert_error(as_player.get("/api/v1/tables/1234567890123456789012"), 404, "not_found")
    assert_error(anon.get("/api/v1/tables/1"), 401, "not_authenticated")


# --- seats -------------------------------------------------------------------------------------------------------


def test_taking_a_seat_answers_the_table_and_the_seat_event(as_staff, as_player, player, fund):
    fund(player, 1_000)
    table = ok(create(as_staff), 201)
    body = ok(sit(as_player, table["id"], seat=2), 201)
    assert body["table"]["you"]["seat"] == 2
    assert body["events"] == [
        {
            "seq": 4,
            "type": "SeatTaken",
            "at": body["events"][0]["at"],
            "data": body["events"][0]["data"],
        }
    ]
    assert body["events"][0]["data"]["seat"] == 2 and body["events"][0]["data"]["username"] == player.get_username()


def test_seat_refusals_change_nothing(as_staff, make_user, client_for, fund):
    table = ok(create(as_staff, max_seats=2), 201)
    users = [make_user("s") for _ in range(4)]
    for user in users[:3]:
        fund(user, 1_000)
    a, b, c, poor = (client_for(user) for user in users)
    ok(sit(a, table["id"], seat=1), 201)

    def refused(client: Any, status: int, code: str, **body: Any) -> None:
        version = Table.objects.get(pk=table["id"]).version
        state = ledger_state()
        assert_error(sit(client, table["id"], **body), status, code)
        assert Table.objects.get(pk=table["id"]).version == version and ledger_state() == state

    refused(b, 409, "seat_taken", seat=1)
    refused(a, 409, "already_seated")
    refused(b, 404, "not_found", seat=3)  # the table has two seats
    refused(poor, 409, "insufficient_funds")  # API.md v1.2: sitting needs the table's min_bet in the wallet
    assert "seat" in field_errors(sit(b, table["id"], seat=9))
    assert "seat" in field_errors(sit(b, table["id"], seat="2"))
    ok(sit(b, table["id"]), 201)
    refused(c, 409, "table_full")
    assert_error(sit(c, 999999), 404, "not_found")


def test_leaving_a_table(as_staff, make_user, client_for, fund):
    table = ok(create(as_staff), 201)
    lone = make_user("l")
    fund(lone, 1_000)
    alone = client_for(lone)
    ok(sit(alone, table["id"]), 201)
    body = ok(alone.delete(f"/api/v1/tables/{table['id']}/seats/me"))
    assert body["table"]["seats"] == [] and body["table"]["you"]["seat"] is None
    assert [e["type"] for e in body["events"]] == ["SeatLeft"]
    assert_error(alone.delete(f"/api/v1/tables/{table['id']}/seats/me"), 409, "not_seated")
    assert_error(alone.delete("/api/v1/tables/999999/seats/me"), 404, "not_found")


def test_leaving_during_a_hand_takes_effect_after_it(as_staff, make_user, client_for, fund):
    table = ok(create(as_staff), 201)
    users = [make_user("m") for _ in range(2)]
    clients = [client_for(u) for u in users]
    for user, client in zip(users, clients, strict=True):
        fund(user, 500)
        ok(sit(client, table["id"]), 201)
    view = ok(clients[0].get(f"/api/v1/tables/{table['id']}"))
    punter = next(
        c for u, c in zip(users, clients, strict=True)
        if u.get_username() == next(s["username"] for s in view["seats"] if not s["is_banker"])
    )  # fmt: skip
    ok(punter.post(f"/api/v1/tables/{table['id']}/actions", {"action": "bet", "amount": 5}, format="json"))
    body = ok(punter.delete(f"/api/v1/tables/{table['id']}/seats/me"))
    assert [e["type"] for e in body["events"]] == ["LeaveRequested"]
    assert any(s["leaving"] for s in body["table"]["seats"])
    assert_error(punter.delete(f"/api/v1/tables/{table['id']}/seats/me"), 409, "illegal_action")


def test_a_new_client_seed_reaches_the_tables_the_player_sits_at(as_staff, as_player, player, fund):
    fund(player, 1_000)
    table = ok(create(as_staff), 201)
    ok(sit(as_player, table["id"]), 201)
    ok(as_player.put("/api/v1/me/client-seed", {"client_seed": "my-lucky-seed"}, format="json"))
    events = ok(as_player.get(f"/api/v1/tables/{table['id']}/events?after=4"))["events"]
    assert [(e["type"], e["data"]["client_seed"]) for e in events] == [("ClientSeedSet", "my-lucky-seed")]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/v1/tables/1"),
        ("post", "/api/v1/tables/1/seats"),
        ("delete", "/api/v1/tables/1/seats/me"),
        ("post", "/api/v1/tables/1/actions"),
        ("get", "/api/v1/tables/1/events"),
        ("get", "/api/v1/hands/1"),
        ("get", "/api/v1/hands/1/verify"),
        ("post", "/api/v1/hands/1/disputes"),
    ],
)
def test_every_game_endpoint_needs_a_signed_in_user(anon, method, path):
    assert_error(getattr(anon, method)(path, {}, format="json"), 401, "not_authenticated")
