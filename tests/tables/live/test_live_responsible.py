"""Live streams and responsible gaming, on a real uvicorn: a break or a self-exclusion revokes every token of the
account, and each stream opened with one of them closes with 4401 within five seconds (API.md v1.2); a stream
outlives no exclusion."""

from __future__ import annotations

import time

import pytest

from tests.support.game_helpers import create_table, ok
from tests.support.live_helpers import Socket, token_of

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("kind, days", [("break", 1), ("self_exclusion", 180)])
def test_an_exclusion_closes_the_open_streams_of_the_account(asgi_server, as_staff, player, client_for, kind, days):
    table = create_table(as_staff, "classic")
    clients = [client_for(player), client_for(player)]
    sockets = [Socket.open(asgi_server, table["id"], token_of(client)) for client in clients]
    for socket in sockets:
        assert socket.recv()["type"] == "events"
    ok(clients[0].post("/api/v1/me/exclusion", {"kind": kind, "days": days}, format="json"), 201)
    started = time.monotonic()
    assert [socket.close_code(timeout=15) for socket in sockets] == [4401, 4401]
    assert time.monotonic() - started < 5  # API.md: within 5 seconds (LIVE_REVALIDATE_S)


def test_a_logout_closes_the_stream_opened_with_that_token(asgi_server, as_staff, player, client_for):
    table = create_table(as_staff, "classic")
    client = client_for(player)
    socket = Socket.open(asgi_server, table["id"], token_of(client))
    assert socket.recv()["type"] == "events"
    assert client.post("/api/v1/auth/logout").status_code == 204
    assert socket.close_code(timeout=15) == 4401
