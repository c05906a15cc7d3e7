"""The sweeper isolates failures, and a timeout never comes before its deadline on the database's clock
(issue 11): a worker whose clock runs ahead, or a timer message sent early, cannot cut a player's time short."""

from __future__ import annotations

import logging
import time

import pytest
from celery.exceptions import Retry

from tables import pipeline, services
from tables.errors import TimeoutNotDue
from tables.models import Table
from tables.tasks import fire_timeout
from tests.support.play import make_players, make_table, state_of

pytestmark = pytest.mark.django_db


def _waiting_table():
    """A table whose betting window (30 s) waits on its punter."""
    players = make_players(2, prefix="sw")
    table = make_table("classic", bank="house")
    for user in players:
        services.table_sit(table_id=table.pk, user=user)
    state = state_of(table.pk)
    assert state.awaiting is not None
    return table, state


def _make_overdue(table: Table) -> None:
    Table.objects.filter(pk=table.pk).update(deadline="2000-01-01T00:00:00Z")


def test_a_timeout_before_its_deadline_is_refused_and_writes_nothing(monkeypatch):
    table, state = _waiting_table()
    monkeypatch.setattr(time, "time", lambda: state.awaiting.deadline_ms / 1000 + 3600)  # the worker's clock
    with pytest.raises(TimeoutNotDue) as early:
        services.table_timeout(table_id=table.pk, version=state.version)
    assert 25_000 < early.value.remaining_ms <= 30_000
    assert state_of(table.pk).version == state.version


def test_an_early_timer_message_waits_for_the_deadline_instead_of_firing():
    table, state = _waiting_table()
    with pytest.raises(Retry) as retried:
        fire_timeout.apply(args=[table.pk, state.version], throw=True).get()
    assert 25 < retried.value.when <= 30  # retried when the deadline comes
    assert state_of(table.pk).version == state.version


def test_the_timeout_fires_once_the_deadline_has_passed():
    table, state = _waiting_table()
    fired = services.table_timeout(table_id=table.pk, version=state.version, now_ms=state.awaiting.deadline_ms)
    assert fired > 0 and state_of(table.pk).version > state.version


def test_the_sweeper_does_not_fire_a_table_overdue_only_by_a_skewed_worker_clock(monkeypatch):
    table, state = _waiting_table()
    _make_overdue(table)  # the read model says overdue, but the table's own deadline is 30 s away
    assert services.sweep_overdue_tables() == 0
    assert state_of(table.pk).version == state.version


def test_one_failing_table_does_not_stop_the_sweep_of_the_others(monkeypatch, caplog):
    broken, broken_state = _waiting_table()
    healthy = [_waiting_table() for _ in range(2)]
    for table, _ in [(broken, broken_state), *healthy]:
        _make_overdue(table)
    real_execute = pipeline.execute

    def failing(*, table_id, **kwargs):
        if table_id == broken.pk:
            raise RuntimeError("the state of this table cannot be loaded")
        return real_execute(table_id=table_id, **kwargs)

    monkeypatch.setattr(pipeline, "execute", failing)
    future = max(state.awaiting.deadline_ms for _, state in [(broken, broken_state), *healthy]) + 1
    monkeypatch.setattr(services, "database_now_ms", lambda: future)
    caplog.set_level(logging.ERROR, logger="tables.services")
    assert services.sweep_overdue_tables() == 2
    for table, state in healthy:
        assert state_of(table.pk).version > state.version
    assert state_of(broken.pk).version == broken_state.version
    failures = [r for r in caplog.records if r.exc_info]
    assert len(failures) == 1 and f"table {broken.pk}" in failures[0].getMessage()
