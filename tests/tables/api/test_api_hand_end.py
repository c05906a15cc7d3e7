"""Issue #35 over HTTP: a banker who asked to leave during a betting window is let go when the hand is abandoned
with no stakes (the last punter left), so his seat is free and the table can fill again; the abandoned hand,
which never dealt a card, shows no deck and says why, in its history and its verification."""

from __future__ import annotations

from typing import Any

import pytest

from tables import loader, services
from tests.support.game_helpers import create_table, deposit, ok, register

pytestmark = pytest.mark.django_db


def _seat_of(table: dict[str, Any], username: str) -> dict[str, Any] | None:
    return next((s for s in table["seats"] if s["username"] == username), None)


def test_a_leaving_banker_is_freed_when_the_hand_is_abandoned_after_the_last_punter_left(anon, as_staff):
    table_id = create_table(as_staff, "classic", max_seats=2)["id"]
    players = [register(anon, "end") for _ in range(2)]
    for player in players:
        deposit(as_staff, player, 500)
        ok(player.client.post(f"/api/v1/tables/{table_id}/seats", {}, format="json"), 201)
    view = players[0].view(table_id)
    assert view["phase"] == "betting"  # the second seat opened the hand: the classic betting window
    hand_id = view["hand"]["id"]
    banker_name = next(s["username"] for s in view["seats"] if s["is_banker"])
    banker = next(p for p in players if p.username == banker_name)
    punter = next(p for p in players if p is not banker)

    # the banker asks to leave during the window: he leaves after this hand
    assert banker.client.delete(f"/api/v1/tables/{table_id}/seats/me").status_code in (200, 202, 204)
    # the last punter leaves: he had not staked, so he goes at once
    assert punter.client.delete(f"/api/v1/tables/{table_id}/seats/me").status_code in (200, 202, 204)
    state = loader.load_table(table_id).state
    assert state.awaiting is not None  # the window is open until its deadline, with nobody left to stake
    assert services.table_timeout(table_id=table_id, version=state.version, now_ms=state.awaiting.deadline_ms) > 0

    view = ok(as_staff.get(f"/api/v1/tables/{table_id}"))
    assert view["phase"] == "waiting" and view["seats"] == []
    # the banker's seat was freed at the hand's end: a second leave finds no seat (not "already leaving")
    again = banker.client.delete(f"/api/v1/tables/{table_id}/seats/me")
    assert again.status_code == 409 and again.json()["error"]["code"] == "not_seated", again.content
    # and the table can fill again
    for player in players:
        ok(player.client.post(f"/api/v1/tables/{table_id}/seats", {}, format="json"), 201)
    assert ok(as_staff.get(f"/api/v1/tables/{table_id}"))["phase"] == "betting"

    history = ok(banker.client.get(f"/api/v1/hands/{hand_id}"))
    assert history["status"] == "abandoned" and history["deals"] == []
    assert history["client_seed"] is None and history["deck"] is None
    assert "client seed was never fixed" in history["deck_reason"]
    report = ok(banker.client.get(f"/api/v1/hands/{hand_id}/verify"))
    assert all(report[check] == "ok" for check in ("commitment", "shuffle", "replay", "ledger")), report
    assert report["deck"] == history["deck_reason"]
