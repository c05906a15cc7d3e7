"""Contract v1.3 over HTTP: ``legal_actions`` never offers an action that changes nothing, and such a command is
refused (409 ``illegal_action``), not recorded. A Hungarian player banker was offered ``set_stake`` with the stake
in force, in his own turn too (24 presses, 24 ``StakeSet`` events, nothing visible)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from tables.models import Event as TableEvent
from tests.support.api_helpers import assert_error
from tests.support.game_helpers import ok

pytestmark = pytest.mark.django_db


def _view(client: APIClient, table_id: int) -> dict[str, Any]:
    return ok(client.get(f"/api/v1/tables/{table_id}"))


def _act(client: APIClient, table_id: int, body: dict[str, Any]) -> Any:
    return client.post(f"/api/v1/tables/{table_id}/actions", body, format="json")


def _events(table_id: int) -> int:
    return TableEvent.objects.filter(table_id=table_id).count()


def test_set_stake_is_offered_only_when_it_changes_the_stake_and_never_in_the_bankers_turn(
    as_staff: APIClient, make_user: Callable[..., Any], fund: Any, client_for: Callable[[Any], APIClient]
) -> None:
    body = {
        "name": "no-op",
        "preset": "hungarian",
        "min_bet": 10,
        "max_bet": 20,
        "fixed_stake": 10,
        "max_seats": 2,
        "bank": "player",
    }
    table_id = int(ok(as_staff.post("/api/v1/tables", body, format="json"), 201)["id"])
    users = [make_user("first"), make_user("second")]
    clients = {}
    for user in users:
        fund(user, 1000)
        clients[user.username] = client_for(user)
        ok(clients[user.username].post(f"/api/v1/tables/{table_id}/seats", {}, format="json"), 201)
    seats = _view(clients[users[0].username], table_id)["seats"]
    banker_name = next(s["username"] for s in seats if s["is_banker"])
    banker = clients[banker_name]
    punter = next(c for name, c in clients.items() if name != banker_name)

    # the stake in force, again: refused, nothing recorded
    before = _events(table_id)
    assert_error(_act(banker, table_id, {"action": "set_stake", "amount": 10}), 409, "illegal_action")
    assert _events(table_id) == before
    # another stake: offered, accepted (for later hands), and then that one is the stake in force
    assert "set_stake" in _view(banker, table_id)["you"]["legal_actions"]
    ok(_act(banker, table_id, {"action": "set_stake", "amount": 20}))
    before = _events(table_id)
    assert_error(_act(banker, table_id, {"action": "set_stake", "amount": 20}), 409, "illegal_action")
    assert _events(table_id) == before

    # the punter bets the hand's stake and stands: the banker's own turn
    view = _view(punter, table_id)
    stake = view["hand"]["stake"]
    ok(_act(punter, table_id, {"action": "bet", "amount": stake}))
    if "stand" in _view(punter, table_id)["you"]["legal_actions"]:
        ok(_act(punter, table_id, {"action": "stand"}))
    view = _view(banker, table_id)
    if view["hand"] is None or view["hand"]["phase"] != "banker":
        pytest.skip(f"the punter's hand ended the hand without the banker's turn ({view['phase']})")
    assert "set_stake" not in view["you"]["legal_actions"]
    before = _events(table_id)
    assert_error(_act(banker, table_id, {"action": "set_stake", "amount": 10}), 409, "illegal_action")
    assert _events(table_id) == before
