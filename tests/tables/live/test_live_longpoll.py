"""``GET /tables/{id}/events?wait=S`` on the ASGI server: a wait holds no thread and no database connection,
each user holds at most ``LIVE_MAX_OPEN_WAITS`` open waits, and one user's waits starve nobody."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.db import connection

from tables import services
from tests.support.api_fixtures import LIVE_TEST_CAP
from tests.support.game_helpers import ok
from tests.support.live_helpers import Socket, http, token_of, wait_for_free_slot

pytestmark = pytest.mark.django_db(transaction=True)

CLASSIC = {"name": "live", "preset": "classic", "min_bet": 5, "max_bet": 50, "max_seats": 3, "bank": "player"}


def _connections() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()")
        return int(cursor.fetchone()[0])


def test_a_wait_with_nothing_new_answers_empty_at_the_deadline(asgi_server, as_staff, as_player):
    table = ok(as_staff.post("/api/v1/tables", CLASSIC, format="json"), 201)
    started = time.monotonic()
    status, body, _ = http(asgi_server, f"/api/v1/tables/{table['id']}/events?after=3&wait=1", token_of(as_player))
    assert 0.9 <= time.monotonic() - started < 5
    assert (status, body) == (200, {"events": [], "last_seq": 3})


def test_the_feed_answers_alike_on_both_servers(asgi_server, as_staff, as_player, player, fund):
    table = ok(as_staff.post("/api/v1/tables", CLASSIC, format="json"), 201)
    fund(player, 100)  # sitting needs the table's min_bet (API.md v1.2)
    ok(as_player.post(f"/api/v1/tables/{table['id']}/seats", {}, format="json"), 201)
    path = f"/api/v1/tables/{table['id']}/events?after=0"
    assert http(asgi_server, path, token_of(as_player))[1] == ok(as_player.get(path))
    assert http(asgi_server, "/api/v1/tables/424242/events?wait=1", token_of(as_player))[0] == 404
    assert http(asgi_server, path + "&wait=31", token_of(as_player))[0] == 400
    assert http(asgi_server, path + "&wait=1")[0] == 401


def test_many_long_polls_wake_on_a_commit_holding_no_database_connection(
    asgi_server, as_staff, make_user, client_for, fund
):
    table = ok(as_staff.post("/api/v1/tables", CLASSIC, format="json"), 201)
    tokens = [token_of(client_for(make_user("w"))) for _ in range(6)]
    connection.close()
    before = _connections()
    results: list[tuple[float, Any]] = []

    def poll(token: str) -> None:
        started = time.monotonic()
        answer = http(asgi_server, f"/api/v1/tables/{table['id']}/events?after=3&wait=20", token)
        results.append((time.monotonic() - started, answer))

    threads = [threading.Thread(target=poll, args=(token,)) for token in tokens]
    for thread in threads:
        thread.start()
    time.sleep(1.0)  # every poll is waiting by now
    during = _connections()
    trigger = make_user("trigger")
    fund(trigger, 100)
    connection.close()
    services.table_sit(table_id=table["id"], user=trigger)
    for thread in threads:
        thread.join(timeout=15)
    assert len(results) == 6
    assert all(elapsed < 5 for elapsed, _ in results), "a long-poll did not wake on the commit"
    assert all(status == 200 and body["last_seq"] == 4 for _, (status, body, _) in results)
    assert [e["type"] for e in results[0][1][1]["events"]] == ["SeatTaken"]
    assert during <= before + 1, f"six waiting long-polls held {during - before} database connections"


def test_the_starvation_attack_gets_429_and_starves_nobody(asgi_server, as_staff, make_user, client_for):
    """One user opens many long-polls at once (the issue's attack): the ones over the cap are refused at once
    with 429 and Retry-After, the others wait; meanwhile another player's requests and /healthz answer
    promptly (a wait holds no thread), and several attacking accounts together change nothing."""
    table = ok(as_staff.post("/api/v1/tables", CLASSIC, format="json"), 201)
    attackers = [token_of(client_for(make_user("attacker"))) for _ in range(3)]
    victim = client_for(make_user("victim"))
    victim_token = token_of(victim)
    per_attacker = LIVE_TEST_CAP * 5
    path = f"/api/v1/tables/{table['id']}/events?after=3&wait=6"
    with ThreadPoolExecutor(max_workers=len(attackers) * per_attacker) as pool:
        started = time.monotonic()
        futures = [(t, pool.submit(http, asgi_server, path, t)) for t in attackers for _ in range(per_attacker)]
        time.sleep(1.5)  # the attack is under way: every slot taken, the rest refused
        for _ in range(5):
            t = time.monotonic()
            assert http(asgi_server, "/healthz")[0] == 200
            status, body, _ = http(asgi_server, f"/api/v1/tables/{table['id']}", victim_token)
            assert status == 200 and body["id"] == table["id"]
            status, body, _ = http(asgi_server, f"/api/v1/tables/{table['id']}/events?after=0", victim_token)
            assert status == 200 and body["last_seq"] == 3
            # a starved service answers after the attackers' 6 s waits (the issue measured 27 s); the bound leaves
            # room for a loaded test machine
            assert time.monotonic() - t < 3.0, "the service was starved"
        refused: dict[str, int] = {}
        waited: dict[str, int] = {}
        for token, future in futures:
            status, body, headers = future.result(timeout=30)
            if status == 429:
                assert body["error"]["code"] == "throttled" and int(headers["Retry-After"]) >= 1, (body, headers)
                refused[token] = refused.get(token, 0) + 1
            else:
                assert status == 200 and body == {"events": [], "last_seq": 3}
                waited[token] = waited.get(token, 0) + 1
        assert time.monotonic() - started >= 6
    for token in attackers:
        assert waited[token] == LIVE_TEST_CAP and refused[token] == per_attacker - LIVE_TEST_CAP


def test_sockets_and_long_polls_share_the_cap(asgi_server, as_staff, as_player, player):
    table = ok(as_staff.post("/api/v1/tables", CLASSIC, format="json"), 201)
    token = token_of(as_player)
    sockets = [Socket.open(asgi_server, table["id"], token) for _ in range(LIVE_TEST_CAP)]
    for socket in sockets:
        socket.recv()
    t0 = time.monotonic()
    status, body, headers = http(asgi_server, f"/api/v1/tables/{table['id']}/events?after=3&wait=5", token)
    assert status == 429, (body, time.monotonic() - t0, [s.messages for s in sockets])
    assert status == 429 and body["error"]["code"] == "throttled" and "Retry-After" in headers
    # a wait that has something to answer at once takes no slot
    assert http(asgi_server, f"/api/v1/tables/{table['id']}/events?after=0&wait=5", token)[0] == 200
    sockets.pop().close()
    wait_for_free_slot(player.pk, LIVE_TEST_CAP)
    started = time.monotonic()
    assert http(asgi_server, f"/api/v1/tables/{table['id']}/events?after=3&wait=1", token)[0] == 200
    assert time.monotonic() - started >= 0.9
    for socket in sockets:
        socket.close()
