"""``GET /hands/{id}``, ``GET /hands/{id}/verify`` and ``POST /hands/{id}/disputes``."""

from __future__ import annotations

from typing import Any

import pytest

from tables import loader, services
from tables.models import Dispute, Hand
from tests.support.api_helpers import assert_error, field_errors
from tests.support.game_helpers import ok

pytestmark = pytest.mark.django_db

HISTORY_KEYS = {
    "id", "table", "number", "game", "status", "rules", "seed_commitment", "seed_committed_at", "server_seed",
    "client_seed", "nonce", "deck", "deck_reason", "banker", "participants", "deals", "actions", "results",
    "next_banker", "ledger",
}  # fmt: skip
ALL_OK = {"commitment": "ok", "shuffle": "ok", "replay": "ok", "ledger": "ok", "chain": "ok", "checkpoint": "ok"}


@pytest.fixture
def hand(as_staff, make_user, client_for, fund) -> dict[str, Any]:
    """A classic player-banked table whose first hand is in the punter's turn (bet 10, one card each)."""
    table = ok(
        as_staff.post(
            "/api/v1/tables",
            {"name": "h", "preset": "classic", "min_bet": 5, "max_bet": 50, "max_seats": 3, "bank": "player"},
            format="json",
        ),
        201,
    )
    users = [make_user("hh") for _ in range(2)]
    for user in users:
        fund(user, 1000)
        ok(client_for(user).post(f"/api/v1/tables/{table['id']}/seats", {}, format="json"), 201)
    view = ok(client_for(users[0]).get(f"/api/v1/tables/{table['id']}"))
    banker_name = next(s["username"] for s in view["seats"] if s["is_banker"])
    banker = next(u for u in users if u.get_username() == banker_name)
    punter = next(u for u in users if u is not banker)
    body = ok(
        client_for(punter).post(f"/api/v1/tables/{table['id']}/actions", {"action": "bet", "amount": 10}, format="json")
    )
    return {
        "table": table["id"],
        "id": body["table"]["hand"]["id"],
        "banker": banker,
        "punter": punter,
        "as_banker": client_for(banker),
        "as_punter": client_for(punter),
    }


def finish(hand: dict[str, Any]) -> None:
    """Play the hand to its end: the punter stands, the banker stands if he must play."""
    body = ok(hand["as_punter"].post(f"/api/v1/tables/{hand['table']}/actions", {"action": "stand"}, format="json"))
    if body["table"]["hand"]["phase"] == "banker":
        ok(hand["as_banker"].post(f"/api/v1/tables/{hand['table']}/actions", {"action": "stand"}, format="json"))
    assert Hand.objects.get(pk=hand["id"]).status == "settled"


def test_a_hand_in_play_is_shown_as_the_participant_sees_the_table(hand):
    history = ok(hand["as_punter"].get(f"/api/v1/hands/{hand['id']}"))
    assert set(history) == HISTORY_KEYS
    assert history["status"] == "in_play" and history["server_seed"] is None and history["deck"] is None
    by_role = {p["role"]: p for p in history["participants"]}
    assert by_role["punter"]["hands"][0]["cards"][0] is not None  # my own face-down card
    assert by_role["banker"]["hands"][0]["cards"] == [None]  # the banker's face-down card
    assert [d["card"] is None for d in history["deals"]] == [False, True]
    assert history["results"] == [] and history["next_banker"] is None
    assert [t["kind"] for t in history["ledger"]] == ["stake_reserve"]
    banker_view = ok(hand["as_banker"].get(f"/api/v1/hands/{hand['id']}"))
    by_role = {p["role"]: p for p in banker_view["participants"]}
    assert by_role["punter"]["hands"][0]["cards"] == [None] and by_role["banker"]["hands"][0]["cards"][0] is not None


def test_a_settled_hand_reveals_everything_to_participants_and_staff(hand, as_staff):
    finish(hand)
    for client in (hand["as_punter"], hand["as_banker"], as_staff):
        history = ok(client.get(f"/api/v1/hands/{hand['id']}"))
        assert history["status"] == "settled" and len(history["server_seed"]) == 64 and len(history["deck"]) == 40
        assert all(d["card"] is not None for d in history["deals"])
        assert len(history["results"]) == 1 and history["next_banker"]["seat"] is not None
        punter = next(p for p in history["participants"] if p["role"] == "punter")
        assert punter["username"] == hand["punter"].get_username() and None not in punter["hands"][0]["cards"]
        assert [t["kind"] for t in history["ledger"]] == ["stake_reserve", "hand_settlement"]
        for row in history["actions"]:
            assert set(row) == {"seq", "at", "seat", "action", "args", "hash", "prev_hash"} and "ctx" not in row["args"]
        actions = [a["action"] for a in history["actions"]]
        assert "bet" in actions and "stand" in actions


def test_a_timeout_is_a_system_action(hand):
    state = loader.load_table(hand["table"]).state
    deadline = state.awaiting.deadline_ms
    assert services.table_timeout(table_id=hand["table"], version=state.version, now_ms=deadline) > 0
    history = ok(hand["as_punter"].get(f"/api/v1/hands/{hand['id']}"))
    timeout = next(a for a in history["actions"] if a["action"] == "timeout")
    assert timeout["seat"] is None and timeout["args"]["reason"] == "timeout"


def test_who_may_read_a_hand(hand, make_user, client_for, anon):
    outsider = client_for(make_user("nosy"))
    assert_error(outsider.get(f"/api/v1/hands/{hand['id']}"), 403, "forbidden")
    assert_error(outsider.get(f"/api/v1/hands/{hand['id']}/verify"), 403, "forbidden")
    assert_error(outsider.get("/api/v1/hands/987654"), 404, "not_found")
    assert_error(anon.get(f"/api/v1/hands/{hand['id']}"), 401, "not_authenticated")


def test_verify_a_settled_hand_and_refuse_one_in_play(hand, as_staff):
    assert_error(hand["as_punter"].get(f"/api/v1/hands/{hand['id']}/verify"), 409, "wrong_phase")
    finish(hand)
    assert ok(hand["as_punter"].get(f"/api/v1/hands/{hand['id']}/verify")) == ALL_OK
    assert ok(as_staff.get(f"/api/v1/hands/{hand['id']}/verify")) == ALL_OK
    assert Hand.objects.get(pk=hand["id"]).verified_at is None  # a GET records nothing
    assert_error(as_staff.get("/api/v1/hands/987654/verify"), 404, "not_found")


def test_a_participant_disputes_a_hand(hand):
    finish(hand)
    url = f"/api/v1/hands/{hand['id']}/disputes"
    first = hand["as_punter"].post(url, {"reason": "the banker was lucky"}, format="json", HTTP_IDEMPOTENCY_KEY="d1")
    body = ok(first, 201)
    assert body["hand"] == hand["id"] and body["status"] == "open" and body["reason"] == "the banker was lucky"
    again = hand["as_punter"].post(url, {"reason": "the banker was lucky"}, format="json", HTTP_IDEMPOTENCY_KEY="d1")
    assert again.status_code == 201 and again.json() == body
    assert Dispute.objects.filter(hand_id=hand["id"]).count() == 1
    assert Hand.objects.get(pk=hand["id"]).disputed is True


def test_dispute_refusals(hand, as_staff, make_user, client_for):
    url = f"/api/v1/hands/{hand['id']}/disputes"
    assert_error(as_staff.post(url, {"reason": "audit"}, format="json"), 403, "forbidden")
    assert_error(client_for(make_user("x")).post(url, {"reason": "me too"}, format="json"), 403, "forbidden")
    assert "reason" in field_errors(hand["as_punter"].post(url, {"reason": "   "}, format="json"))
    assert "reason" in field_errors(hand["as_punter"].post(url, {}, format="json"))
    assert "extra" in field_errors(hand["as_punter"].post(url, {"reason": "r", "extra": 1}, format="json"))
    assert_error(
        hand["as_punter"].post("/api/v1/hands/987654/disputes", {"reason": "r"}, format="json"), 404, "not_found"
    )
    assert not Dispute.objects.exists() and Hand.objects.get(pk=hand["id"]).disputed is False
