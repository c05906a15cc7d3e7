"""Seats under abuse (issue 27; API.md v1.2 "Actions", seats): sitting needs the table's ``min_bet`` in the
wallet, one account holds at most ``SEATS_PER_ACCOUNT`` seats over all tables. Accounts without chips can no
longer fill a table; a refused sit changes nothing."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from tables.models import TableSeat
from tests.support.game_helpers import create_table, ok


def _sit(client: Any, table_id: int) -> Any:
    return client.post(f"/api/v1/tables/{table_id}/seats", {}, format="json")


def _error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["error"]["code"] == code
    return body["error"]  # type: ignore[no-any-return]


@pytest.mark.django_db
def test_sitting_needs_min_bet_in_the_wallet_and_a_refusal_changes_nothing(as_staff, make_user, client_for, fund):
    table = create_table(as_staff, "classic", min_bet=50, max_bet=100)
    poor = make_user("poor")
    fund(poor, 49)
    client = client_for(poor)
    before = ok(client.get(f"/api/v1/tables/{table['id']}"))
    error = _error(_sit(client, table["id"]), 409, "insufficient_funds")
    assert error["details"] == {"min_bet": 50, "balance": 49}
    after = ok(client.get(f"/api/v1/tables/{table['id']}"))
    assert after["version"] == before["version"] and after["seats"] == []
    fund(poor, 1)
    ok(_sit(client, table["id"]), 201)


@pytest.mark.django_db
def test_accounts_without_chips_cannot_fill_a_table(as_staff, make_user, client_for, fund):
    table = create_table(as_staff, "classic", max_seats=6)
    for n in range(6):
        _error(_sit(client_for(make_user(f"empty{n}")), table["id"]), 409, "insufficient_funds")
    player = make_user("real")
    fund(player, 1_000)
    ok(_sit(client_for(player), table["id"]), 201)  # the table is not full for a player with chips


@pytest.mark.django_db
def test_an_account_holds_at_most_four_seats(as_staff, make_user, client_for, fund, settings):
    assert settings.SEATS_PER_ACCOUNT == 4
    tables = [create_table(as_staff, "classic")["id"] for _ in range(5)]
    player = make_user("greedy")
    fund(player, 10_000)
    client = client_for(player)
    for table_id in tables[:4]:
        ok(_sit(client, table_id), 201)
    error = _error(_sit(client, tables[4]), 409, "seat_limit")
    assert error["details"] == {"limit": 4, "held": 4}
    assert TableSeat.objects.filter(user=player).count() == 4
    _error(_sit(client, tables[0]), 409, "already_seated")  # a table he sits at is not a fifth seat
    assert client.delete(f"/api/v1/tables/{tables[0]}/seats/me").status_code in (200, 204)
    ok(_sit(client, tables[4]), 201)


@pytest.mark.django_db(transaction=True)
def test_sits_at_once_cannot_pass_the_seat_cap(as_staff, make_user, client_for, fund):
    tables = [create_table(as_staff, "classic")["id"] for _ in range(8)]
    player = make_user("racer")
    fund(player, 10_000)
    statuses: list[int] = []
    barrier = threading.Barrier(len(tables))

    def sit(table_id: int) -> None:
        from django.db import connection

        client = client_for(player)
        barrier.wait()
        try:
            statuses.append(_sit(client, table_id).status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=sit, args=(table_id,)) for table_id in tables]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(statuses) == [201] * 4 + [409] * 4
    assert TableSeat.objects.filter(user=player).count() == 4
