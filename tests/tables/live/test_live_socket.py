"""``/ws/v1/tables/{id}`` on a real uvicorn (API.md "Live updates"): authentication, close codes, and every
event of a hand delivered in order, none skipped, across a reconnect with ``resume``."""

from __future__ import annotations

import json
import random
import time

import pytest

from tables import notify, services
from tests.support.api_fixtures import LIVE_TEST_AUTH_TIMEOUT_S, LIVE_TEST_CAP, LIVE_TEST_RECHECK_S
from tests.support.game_helpers import HttpTable, create_table, deposit, ok, register
from tests.support.live_helpers import Socket, open_as, token_of, wait_for_free_slot

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_token_opens_the_stream_at_the_tables_version(asgi_server, as_staff, as_player):
    table = create_table(as_staff, "classic")
    socket = Socket.open(asgi_server, table["id"], token_of(as_player))
    assert socket.recv() == {"type": "events", "events": [], "last_seq": 3}
    socket.close()


@pytest.mark.parametrize("first", [{"type": "auth", "token": "0" * 40}, {"type": "auth"}, {"type": "resume"}])
def test_anything_but_a_valid_token_first_closes_4401(asgi_server, as_staff, first):
    table = create_table(as_staff, "classic")
    socket = Socket.open(asgi_server, table["id"])
    socket.ws.send(first if isinstance(first, str) else json.dumps(first))
    assert socket.close_code() == 4401


@pytest.mark.parametrize("how", ["expired", "logged out", "password changed"])
def test_an_expired_or_revoked_token_closes_4401(asgi_server, as_staff, player, client_for, how):
    """API.md v1.1 tokens on the socket: the same rules as on REST (issue 11)."""
    from datetime import timedelta

    from django.contrib.auth.hashers import make_password
    from django.utils import timezone

    from tests.conftest import owner_cursor

    table = create_table(as_staff, "classic")
    client = client_for(player)
    key = token_of(client)
    if how == "logged out":
        assert client.post("/api/v1/auth/logout").status_code == 204
    else:
        with owner_cursor() as cursor:  # (a token's expiry and a password are the owner's to change: issue #43)
            if how == "expired":
                expired = timezone.now() - timedelta(seconds=1)
                cursor.execute("UPDATE knox_authtoken SET expiry = %s WHERE user_id = %s", [expired, player.pk])
            else:
                new = make_password("another horse 43")
                cursor.execute("UPDATE auth_user SET password = %s WHERE id = %s", [new, player.pk])
    socket = Socket.open(asgi_server, table["id"], key)
    assert socket.close_code() == 4401


def test_silence_closes_4401_after_the_auth_timeout(asgi_server, as_staff):
    table = create_table(as_staff, "classic")
    socket = Socket.open(asgi_server, table["id"])
    started = time.monotonic()
    assert socket.close_code(timeout=LIVE_TEST_AUTH_TIMEOUT_S + 10) == 4401
    assert LIVE_TEST_AUTH_TIMEOUT_S - 0.5 <= time.monotonic() - started < LIVE_TEST_AUTH_TIMEOUT_S + 5


def test_an_unknown_table_closes_4404(asgi_server, as_player):
    assert Socket.open(asgi_server, 987654, token_of(as_player)).close_code() == 4404


def test_a_user_over_the_cap_of_open_waits_closes_4429_and_a_freed_slot_lets_him_in(
    asgi_server, as_staff, as_player, player
):
    table = create_table(as_staff, "classic")
    token = token_of(as_player)
    sockets = [Socket.open(asgi_server, table["id"], token) for _ in range(LIVE_TEST_CAP)]
    for socket in sockets:
        assert socket.recv()["last_seq"] == 3
    assert Socket.open(asgi_server, table["id"], token).close_code() == 4429
    other = open_as(asgi_server, table["id"], as_staff)  # another user (staff: with his session, no token)
    assert other.recv()["last_seq"] == 3
    other.close()
    sockets.pop().close()
    wait_for_free_slot(player.pk, LIVE_TEST_CAP)  # the server notices the close and frees the slot
    late = Socket.open(asgi_server, table["id"], token)
    assert late.recv()["last_seq"] == 3
    for socket in [*sockets, late]:
        socket.close()


def test_a_session_cookie_works_from_this_site_only(asgi_server, as_staff, player, client):
    table = create_table(as_staff, "classic")
    client.force_login(player)
    cookie = f"sessionid={client.cookies['sessionid'].value}"
    host = asgi_server.split(":")[0]
    same_site = Socket.open(
        asgi_server, table["id"], additional_headers={"Cookie": cookie}, origin=f"http://{host}:8000"
    )
    assert same_site.recv()["last_seq"] == 3
    same_site.close()
    other_site = Socket.open(
        asgi_server, table["id"], additional_headers={"Cookie": cookie}, origin="http://evil.example"
    )
    assert other_site.close_code(timeout=LIVE_TEST_AUTH_TIMEOUT_S + 10) == 4401


def test_a_socket_gets_every_event_of_a_hand_in_order_across_a_reconnect(asgi_server, anon, as_staff):
    players = [register(anon, "ws") for _ in range(3)]
    for player in players:
        deposit(as_staff, player, 10_000)
    table = create_table(as_staff, "classic", max_seats=4)
    watcher = players[0]
    socket = Socket.open(asgi_server, table["id"], token_of(watcher.client))
    socket.recv()
    socket.send({"type": "resume", "after": 0})
    game = HttpTable(table["id"], players, random.Random("live-order"))
    game.sit_all()
    reconnected = False
    received: list[dict] = []

    def after_step(step) -> None:  # type: ignore[no-untyped-def]
        nonlocal socket, reconnected
        socket.until(step.response["table"]["version"])
        hand = step.response["table"]["hand"]
        if not reconnected and hand is not None and hand["phase"] != "settled":  # mid-hand: drop, act, come back
            received.extend(socket.events)
            socket.close()
            game.step()
            socket = Socket.open(asgi_server, table["id"], token_of(watcher.client))
            socket.recv()
            socket.send({"type": "resume", "after": received[-1]["seq"]})
            reconnected = True
            socket.until(game.steps[-1].response["table"]["version"])

    game.play_hands(2, after_step=after_step)
    received.extend(socket.events)
    assert reconnected
    seqs = [event["seq"] for event in received]
    final = ok(watcher.client.get(f"/api/v1/tables/{table['id']}"))["version"]
    assert seqs == list(range(1, final + 1)), "an event was skipped, repeated or out of order"
    # the same objects as the REST feed (censored for the same viewer, the hands being settled now)
    rest = ok(watcher.client.get(f"/api/v1/tables/{table['id']}/events?after=0"))["events"]
    kinds = ("HandSettled", "TableCreated", "SeatTaken")

    def unchained(e: dict) -> dict:  # chain hashes appear once a checkpoint covers the event (docs/fairness.md)
        return {k: v for k, v in e.items() if k not in ("hash", "prev_hash", "hash_form", "private_sha256")}

    settled = [unchained(e) for e in received if e["type"] in kinds]
    assert settled == [unchained(e) for e in rest if e["type"] in kinds]


def test_a_commit_outside_the_api_reaches_the_socket(asgi_server, as_staff, as_player, make_user, fund):
    """The after-commit publish of any process (here a service call, as a Celery timer would) wakes sockets."""
    table = create_table(as_staff, "classic")
    socket = Socket.open(asgi_server, table["id"], token_of(as_player))
    socket.recv()
    started = time.monotonic()
    late = make_user("late")
    fund(late, 100)  # sitting needs the table's min_bet (API.md v1.2)
    services.table_sit(table_id=table["id"], user=late)
    message = socket.recv(timeout=5)
    assert time.monotonic() - started < 2
    assert [e["type"] for e in message["events"]] == ["SeatTaken"] and message["last_seq"] == 4


def test_a_lost_notification_only_delays_the_socket(asgi_server, as_staff, as_player, make_user, fund, monkeypatch):
    """The commit records its version but its pub/sub message is lost (Redis pub/sub down at that instant):
    the quiet socket checks the recorded version after LIVE_RECHECK_S and sends the event anyway."""
    table = create_table(as_staff, "classic")
    socket = Socket.open(asgi_server, table["id"], token_of(as_player))
    socket.recv()

    def record_only(table_id: int, version: int) -> None:  # the SET of publish, without its message
        notify.client().set(notify.latest_key(table_id), version)

    monkeypatch.setattr(notify, "publish", record_only)
    unheard = make_user("unheard")
    fund(unheard, 100)
    services.table_sit(table_id=table["id"], user=unheard)
    message = socket.recv(timeout=LIVE_TEST_RECHECK_S + 5)
    assert [e["type"] for e in message["events"]] == ["SeatTaken"] and message["last_seq"] == 4
