"""``GET /tables/{id}/events?after=N&wait=S``: the feed, and the long-poll (real Redis, committed writes)."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from api_helpers import assert_error, field_errors
from django.db import connection
from game_helpers import ok

from tables import notify, services
from tables.models import Table

CLASSIC = {"name": "feed", "preset": "classic", "min_bet": 5, "max_bet": 50, "max_seats": 3, "bank": "player"}


def feed(client: Any, table_id: int, query: str = "") -> Any:
    return client.get(f"/api/v1/tables/{table_id}/events{query}")


@pytest.mark.django_db
def test_the_feed_pages_by_seq(as_staff, as_player):
    table = ok(as_staff.post("/api/v1/tables", CLASSIC, format="json"), 201)
    ok(as_player.post(f"/api/v1/tables/{table['id']}/seats", {}, format="json"), 201)
    everything = ok(feed(as_player, table["id"]))
    assert [e["seq"] for e in everything["events"]] == [1, 2, 3]
    assert [e["type"] for e in everything["events"]] == ["TableCreated", "SeedCommitted", "SeatTaken"]
    assert set(everything["events"][0]) == {"seq", "type", "at", "data"} and everything["last_seq"] == 3
    committed = everything["events"][1]["data"]  # hand 1's commitment, public from the table's creation
    assert committed["number"] == 1 and committed["seed_commitment"] == table["next_seed_commitment"]
    assert committed["sealed_seed"] is None  # nobody sees the sealed seed
    assert ok(feed(as_player, table["id"], "?after=1"))["events"] == everything["events"][1:]
    assert ok(feed(as_player, table["id"], "?after=3")) == {"events": [], "last_seq": 3}
    assert ok(feed(as_player, table["id"], "?after=99")) == {"events": [], "last_seq": 3}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "field"), [("?after=-1", "after"), ("?after=x", "after"), ("?wait=31", "wait"), ("?wait=1.5", "wait")]
)
def test_a_bad_query_is_400_naming_it(as_staff, as_player, query, field):
    table = ok(as_staff.post("/api/v1/tables", CLASSIC, format="json"), 201)
    assert field in field_errors(feed(as_player, table["id"], query))


@pytest.mark.django_db
def test_unknown_table_and_anonymous(as_player, anon):
    assert_error(feed(as_player, 424242), 404, "not_found")
    assert_error(feed(as_player, 424242, "?wait=1"), 404, "not_found")
    assert_error(feed(anon, 1), 401, "not_authenticated")


@pytest.mark.django_db
def test_a_wait_with_nothing_new_answers_empty_at_the_deadline(as_staff, as_player):
    table = ok(as_staff.post("/api/v1/tables", CLASSIC, format="json"), 201)
    started = time.monotonic()
    body = ok(feed(as_player, table["id"], "?after=2&wait=1"))
    assert 0.9 <= time.monotonic() - started < 5
    assert body == {"events": [], "last_seq": 2}


@pytest.mark.django_db(transaction=True)
def test_a_long_poll_answers_as_soon_as_an_event_commits_holding_no_connection(
    as_staff, as_player, make_user, monkeypatch
):
    table = ok(as_staff.post("/api/v1/tables", CLASSIC, format="json"), 201)
    version = Table.objects.get(pk=table["id"]).version
    holding: list[bool] = []
    real_wait = notify.Hub.wait

    def spying_wait(self: notify.Hub, waiter: Any, timeout: float) -> bool:
        holding.append(connection.connection is not None)  # this thread's database connection, while it waits
        return real_wait(self, waiter, timeout)

    monkeypatch.setattr(notify.Hub, "wait", spying_wait)
    answers: list[tuple[float, Any]] = []

    def poll() -> None:
        try:
            started = time.monotonic()
            response = feed(as_player, table["id"], f"?after={version}&wait=20")
            answers.append((time.monotonic() - started, response))
        finally:
            connection.close()

    poller = threading.Thread(target=poll)
    poller.start()
    time.sleep(0.5)  # the poller is waiting on Redis by now
    services.table_sit(table_id=table["id"], user=make_user("late"))  # commits, then publishes
    poller.join(timeout=15)
    assert not poller.is_alive()
    elapsed, response = answers[0]
    body = ok(response)
    assert elapsed < 5, "the long-poll did not wake on the commit"
    assert [e["type"] for e in body["events"]] == ["SeatTaken"] and body["last_seq"] == version + 1
    assert holding and not any(holding), "a waiting long-poll held a database connection"


@pytest.mark.django_db(transaction=True)
def test_many_long_polls_wake_together(as_staff, make_user, client_for):
    table = ok(as_staff.post("/api/v1/tables", CLASSIC, format="json"), 201)
    clients = [client_for(make_user("w")) for _ in range(6)]
    results: list[Any] = []

    def poll(client: Any) -> None:
        try:
            results.append(feed(client, table["id"], "?after=1&wait=20"))
        finally:
            connection.close()

    threads = [threading.Thread(target=poll, args=(c,)) for c in clients]
    for thread in threads:
        thread.start()
    time.sleep(0.5)
    started = time.monotonic()
    services.table_sit(table_id=table["id"], user=make_user("trigger"))
    for thread in threads:
        thread.join(timeout=15)
    assert time.monotonic() - started < 5
    assert len(results) == 6 and all(ok(r)["last_seq"] == 2 for r in results)
