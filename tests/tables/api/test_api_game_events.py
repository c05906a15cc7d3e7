"""``GET /tables/{id}/events?after=N&wait=S``: the feed (the long-poll: tests/tables/live/test_live_longpoll.py)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.support.api_helpers import assert_error, field_errors
from tests.support.game_helpers import ok

CLASSIC = {"name": "feed", "preset": "classic", "min_bet": 5, "max_bet": 50, "max_seats": 3, "bank": "player"}


def feed(client: Any, table_id: int, query: str = "") -> Any:
    return client.get(f"/api/v1/tables/{table_id}/events{query}")


@pytest.mark.django_db
def test_the_feed_pages_by_seq(as_staff, as_player, player, fund):
    fund(player, 1_000)  # sitting needs the table's min_bet (API.md v1.2)
    table = ok(as_staff.post("/api/v1/tables", CLASSIC, format="json"), 201)
    ok(as_player.post(f"/api/v1/tables/{table['id']}/seats", {}, format="json"), 201)
    everything = ok(feed(as_player, table["id"]))
    assert [e["seq"] for e in everything["events"]] == [1, 2, 3, 4]
    # the seeds of hands 1 and 2 are committed with the table (API.md v1.2)
    assert [e["type"] for e in everything["events"]] == ["TableCreated", "SeedCommitted", "SeedCommitted", "SeatTaken"]
    assert set(everything["events"][0]) == {"seq", "type", "at", "data"} and everything["last_seq"] == 4
    committed = everything["events"][1]["data"]  # hand 1's commitment, public from the table's creation
    assert committed["number"] == 1 and committed["seed_commitment"] == table["next_seed_commitment"]
    assert committed["sealed_seed"] is None  # nobody sees the sealed seed
    assert ok(feed(as_player, table["id"], "?after=1"))["events"] == everything["events"][1:]
    assert ok(feed(as_player, table["id"], "?after=4")) == {"events": [], "last_seq": 4}
    assert ok(feed(as_player, table["id"], "?after=99")) == {"events": [], "last_seq": 4}


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
def test_the_rest_server_answers_a_wait_at_once(as_staff, as_player):
    """Under WSGI (gunicorn, the test client) no wait holds a thread: waits are the ASGI server's
    (tests/tables/live/test_live_longpoll.py)."""
    table = ok(as_staff.post("/api/v1/tables", CLASSIC, format="json"), 201)
    started = time.monotonic()
    body = ok(feed(as_player, table["id"], "?after=3&wait=30"))
    assert time.monotonic() - started < 2
    assert body == {"events": [], "last_seq": 3}
