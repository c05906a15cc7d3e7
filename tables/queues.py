"""Celery queues routed by table (docs/scale-out.md): one table's timers always meet in one queue."""

from __future__ import annotations

from django.conf import settings


def table_queue(table_id: int) -> str:
    """The queue of table ``table_id``'s timers: ``<TABLE_TIMER_QUEUE>.<table id mod TABLE_QUEUE_SHARDS>`` (the
    timers' queue itself when there is one shard), so one table's tasks always meet in one queue."""
    shards = settings.TABLE_QUEUE_SHARDS
    return settings.TABLE_TIMER_QUEUE if shards <= 1 else f"{settings.TABLE_TIMER_QUEUE}.{table_id % shards}"


def table_queues() -> list[str]:
    """Every table's queue (:func:`table_queue` over all shards)."""
    return sorted({table_queue(shard) for shard in range(max(settings.TABLE_QUEUE_SHARDS, 1))})
