"""Timers are routed by table (issue #34, docs/scale-out.md): each table's to one of TABLE_QUEUE_SHARDS queues,
and a worker consuming the timers' queue consumes every shard of it."""

from __future__ import annotations

import socket

import pytest

from casino.celery import app
from tables.after_commit import FIRE_TIMEOUT
from tables.queues import table_queue, table_queues
from tests.conftest import wait_for


def test_a_tables_timers_go_to_its_shard_of_the_timers_queue(settings):
    settings.TABLE_TIMER_QUEUE, settings.TABLE_QUEUE_SHARDS = "timers", 4
    assert [table_queue(t) for t in (1, 2, 3, 4, 5, 1001)] == [
        "timers.1", "timers.2", "timers.3", "timers.0", "timers.1", "timers.1",
    ]  # fmt: skip
    assert table_queues() == ["timers.0", "timers.1", "timers.2", "timers.3"]
    settings.TABLE_QUEUE_SHARDS = 1
    assert table_queue(7) == "timers" and table_queues() == ["timers"]


@pytest.mark.django_db(transaction=True)
def test_a_worker_on_the_timers_queue_consumes_every_tables_queue_and_fires_a_routed_timer(
    queue, start_worker, settings
):
    """The worker is started as `make run`, compose and the soak start theirs (on the timers' queue); it listens
    on each table shard, and a timer sent to a table's shard is run (a timeout for a table that no longer waits
    at that version is a no-op that the worker still logs and acknowledges)."""
    def waiting() -> list[int]:
        with app.connection_for_write() as conn, conn.channel() as channel:
            return [channel.client.llen(channel._q_for_pri(name, 0)) for name in table_queues()]

    for table_id in range(settings.TABLE_QUEUE_SHARDS):  # one timer on every shard, before any worker runs
        app.send_task(FIRE_TIMEOUT, args=[10**9 + table_id, 1], queue=table_queue(table_id)).forget()
    assert waiting() == [1] * settings.TABLE_QUEUE_SHARDS
    start_worker()
    destination = [f"{queue}@{socket.gethostname()}"]
    active = app.control.inspect(destination=destination, timeout=5).active_queues() or {}
    consumed = {q["name"] for queues in active.values() for q in queues}
    assert consumed == {queue, *table_queues()} and len(table_queues()) == settings.TABLE_QUEUE_SHARDS
    assert wait_for(lambda: waiting() == [0] * settings.TABLE_QUEUE_SHARDS, 30)
