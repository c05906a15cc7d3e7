"""A commit's notification is never lost to its connection (issue #45): ``tables.notify.publish`` on the real
Redis, with its connection closed under it mid-publish, still records the version and wakes the table's
followers; and one process holds one client, however many threads ask for it at once (two clients made by a race
were what closed a connection in use: the replaced one's pool closed with it)."""

from __future__ import annotations

import threading
import time
from typing import Any

import msgpack
import pytest
import redis
from django.conf import settings

from tables import notify


def _subscribed(table_id: int) -> Any:
    listener = redis.Redis.from_url(settings.REDIS_URL).pubsub()
    listener.subscribe(notify.group_channel(table_id))
    assert listener.get_message(timeout=5)["type"] == "subscribe"
    return listener


def _heard(listener: Any, timeout: float = 5) -> list[dict[str, Any]]:
    heard, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        message = listener.get_message(timeout=0.2)
        if message is not None and message["type"] == "message":
            heard.append(msgpack.unpackb(message["data"]))
            break
    return heard


@pytest.mark.parametrize("when", ["after sending", "before sending"])
def test_a_connection_closed_mid_publish_still_notifies(monkeypatch: pytest.MonkeyPatch, when: str) -> None:
    table_id = 4_500_000 + (1 if when == "after sending" else 2)
    listener = _subscribed(table_id)
    pool = notify.client().connection_pool
    closed: list[Any] = []
    real_get = pool.get_connection

    def get_connection(*args: Any, **kwargs: Any) -> Any:
        connection = real_get(*args, **kwargs)
        if closed:
            return connection
        closed.append(connection)
        real_send = connection.send_packed_command

        def send_packed_command(command: Any, check_health: bool = True) -> None:
            connection.send_packed_command = real_send  # once
            if when == "after sending":
                real_send(command, check_health)
            # another thread closes the connection, as the pool of a dropped client did (disconnect in use)
            closer = threading.Thread(target=connection.disconnect)
            closer.start()
            closer.join()
            if when == "before sending":
                raise ValueError("I/O operation on closed file.")  # what the closed reader raised

        connection.send_packed_command = send_packed_command
        return connection

    monkeypatch.setattr(pool, "get_connection", get_connection)
    notify.publish(table_id, 7)
    assert closed, "the publish never took a connection"
    monkeypatch.undo()
    heard = _heard(listener)
    listener.close()
    assert heard, "the notification was lost with its connection"
    assert notify.client().get(notify.latest_key(table_id)) == b"7"


def test_one_client_per_process_however_many_threads_ask_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(notify, "_client", None)
    start = threading.Barrier(16)
    got: list[Any] = []

    def ask() -> None:
        start.wait()
        got.append(notify.client())

    threads = [threading.Thread(target=ask) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(got) == 16 and all(made is got[0] for made in got)
    assert got[0].auto_close_connection_pool is False  # dropping a client never closes a pool others use
