"""``you.legal_actions`` is worked out once per state, player and wallets (issue #15), not probed again for every
view: the core probes ``decide`` with each action (about a dozen probes), so the shell keeps the answer by the
chain hash of the state's last event (which names one state of one table in any database)."""

from __future__ import annotations

from typing import Any

import pytest

from rules import legal_actions
from tables import selectors
from tables.api.presenters import API_ACTIONS
from tests.support.game_helpers import ok

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def probes(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, str]]:
    """Every time the shell asks the core for legal actions: (state version, player)."""
    calls: list[tuple[int, str]] = []

    def counted(state: Any, player_id: str, wallets: Any = None) -> list[str]:
        calls.append((state.version, player_id))
        return legal_actions(state, player_id, wallets)

    monkeypatch.setattr(selectors, "legal_actions", counted)
    return calls


def test_views_of_one_state_probe_once(house_table: tuple[Any, int], probes: list[tuple[int, str]]) -> None:
    client, table_id = house_table
    first = ok(client.get(f"/api/v1/tables/{table_id}"))
    for _ in range(5):
        again = ok(client.get(f"/api/v1/tables/{table_id}"))
        assert again["you"]["legal_actions"] == first["you"]["legal_actions"]
    assert len(probes) <= 1, probes  # at most the first view probes (an action's answer may have probed already)

    answer = ok(client.post(f"/api/v1/tables/{table_id}/actions", {"action": "bet", "amount": 10}, format="json"))
    after = answer["table"]["version"]
    assert probes[-1][0] == after  # a new state is probed, once, for the action's own answer
    count = len(probes)
    view = ok(client.get(f"/api/v1/tables/{table_id}"))
    assert view["version"] == after and view["you"]["legal_actions"] == answer["table"]["you"]["legal_actions"]
    assert len(probes) == count  # ... and not again for the next view of the same state


def test_a_wallet_change_is_probed_again(
    house_table: tuple[Any, int], probes: list[tuple[int, str]], fund: Any, player: Any
) -> None:
    client, table_id = house_table
    ok(client.get(f"/api/v1/tables/{table_id}"))
    count = len(probes)
    fund(player, 5)  # same table state, other wallets: the answer may differ (funds are checked)
    ok(client.get(f"/api/v1/tables/{table_id}"))
    assert len(probes) == count + 1


def test_the_kept_answer_is_the_cores(house_table: tuple[Any, int], player: Any) -> None:
    client, table_id = house_table
    for _ in range(3):
        view = ok(client.get(f"/api/v1/tables/{table_id}"))
        read = selectors.table_read(table_id=table_id, user=player)
        cores = legal_actions(read.state, str(player.pk), read.wallets)
        assert view["you"]["legal_actions"] == [a for a in cores if a in API_ACTIONS]  # as the API words it
        if "bet" in view["you"]["legal_actions"]:
            ok(client.post(f"/api/v1/tables/{table_id}/actions", {"action": "bet", "amount": 10}, format="json"))
