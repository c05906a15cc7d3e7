"""Idle turns time out through a real Celery worker and Celery beat on real Redis (no eager mode)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.core.management import call_command

from tables import services
from tables.store import load_stream
from tables.tasks import fire_timeout
from tests.conftest import wait_for
from tests.support.play import make_players, make_table, state_of

pytestmark = pytest.mark.django_db(transaction=True)


def _events(table_id: int, type_: str):
    return [e for e in load_stream(table_id) if e.type == type_]


def _seated_betting_table(preset="classic", bank="house", **extra):
    players = make_players(2)
    table = make_table(preset, bank=bank, turn_timeout_s=1, betting_timeout_s=2, **extra)
    for user in players:
        services.table_sit(table_id=table.pk, user=user)
    return table, players


def test_a_punter_who_does_nothing_is_stood_within_the_deadline_plus_one_second(start_worker):
    start_worker()
    table, players = _seated_betting_table()
    state = state_of(table.pk)
    owing = [state.seat_at(s).player_id for s in state.hand.entrants]
    for user in players:
        if str(user.pk) in owing:
            services.table_act(table_id=table.pk, user=user, action="bet", args={"amount": 10})
    state = state_of(table.pk)
    assert state.phase == "punters" and state.awaiting.kind == "play"
    deadline_ms = state.awaiting.deadline_ms
    stood = wait_for(lambda: [e for e in _events(table.pk, "HandStood") if e.data.get("reason") == "timeout"], 10)
    assert stood, "the idle punter was never stood"
    late = stood[0].recorded_at - datetime.fromtimestamp(deadline_ms / 1000, tz=UTC)
    assert late.total_seconds() <= 1.0, f"stood {late.total_seconds():.2f} s after the deadline"
    assert late.total_seconds() >= 0, "stood before the deadline"
    assert stood[0].metadata["actor"] is None and stood[0].metadata["reason"] == "timeout"


def test_a_betting_window_closes_on_time(start_worker):
    start_worker()
    table, _players = _seated_betting_table()
    state = state_of(table.pk)
    assert state.phase == "betting"
    deadline_ms = state.awaiting.deadline_ms
    closed = wait_for(lambda: _events(table.pk, "HandAbandoned") or _events(table.pk, "BettingClosed"), 10)
    assert closed, "the betting window never closed"
    late = closed[0].recorded_at - datetime.fromtimestamp(deadline_ms / 1000, tz=UTC)
    assert 0 <= late.total_seconds() <= 1.0
    assert state_of(table.pk).phase == "waiting"  # nobody bet: no deal, and no spinning through empty hands
    version = state_of(table.pk).version
    assert not wait_for(lambda: state_of(table.pk).version != version, 3)


def test_a_task_delivered_twice_acts_once_and_one_for_an_old_version_does_nothing(start_worker, settings):
    settings.TABLE_TIMERS = False  # only the tasks this test sends
    table, _players = _seated_betting_table()
    start_worker()
    waiting = state_of(table.pk).version
    old = waiting - 1
    fire_timeout.apply_async(args=[table.pk, old], queue=settings.TABLE_TIMER_QUEUE).forget()
    first = fire_timeout.apply_async(args=[table.pk, waiting], queue=settings.TABLE_TIMER_QUEUE)
    second = fire_timeout.apply_async(args=[table.pk, waiting], queue=settings.TABLE_TIMER_QUEUE)
    assert wait_for(lambda: state_of(table.pk).version > waiting, 10)
    after = state_of(table.pk).version
    assert not wait_for(lambda: state_of(table.pk).version != after, 2)  # the duplicate changed nothing
    assert len(_events(table.pk, "HandAbandoned")) == 1
    del first, second


def test_with_no_worker_when_the_turn_starts_the_sweeper_fires_the_timeout_once_workers_are_up(
    start_worker, start_beat, settings
):
    settings.TABLE_TIMERS = False  # the timer message is lost: only the sweeper can save the table
    table, _players = _seated_betting_table()
    waiting = state_of(table.pk).version
    assert wait_for(lambda: datetime.now(tz=UTC).timestamp() * 1000 > state_of(table.pk).awaiting.deadline_ms + 600, 10)
    assert state_of(table.pk).version == waiting  # nothing happened without a worker
    start_worker()
    start_beat()
    assert wait_for(lambda: state_of(table.pk).version > waiting, 15), "the sweeper never fired the timeout"
    assert len(_events(table.pk, "HandAbandoned")) == 1


def test_a_player_banker_who_does_nothing_stands_and_the_hand_settles(start_worker):
    start_worker()
    players = make_players(2)
    table = make_table("classic", bank="player", turn_timeout_s=1, betting_timeout_s=1)
    for user in players:
        services.table_sit(table_id=table.pk, user=user)
    state = state_of(table.pk)
    banker = state.seat_at(state.banker_seat).player_id
    punter = next(u for u in players if str(u.pk) != banker)
    services.table_act(table_id=table.pk, user=punter, action="bet", args={"amount": 10})
    services.table_act(table_id=table.pk, user=punter, action="stand", args={})
    state = state_of(table.pk)
    if state.settled_through == 0:  # unless the punter's hand ended it already, the banker is now to play
        assert state.awaiting.kind == "banker"
        assert wait_for(lambda: state_of(table.pk).settled_through >= 1, 10), "the banker's timeout never came"
        stood = [e for e in _events(table.pk, "HandStood") if e.data.get("reason") == "timeout"]
        assert stood and stood[-1].metadata["reason"] == "timeout"
    assert _events(table.pk, "HandSettled")


def test_a_table_of_idle_players_deals_and_settles_by_timeouts_alone_then_waits(start_worker):
    start_worker()
    players = make_players(3)
    table = make_table("italian", bank="house", turn_timeout_s=1, betting_timeout_s=1)
    for user in players:
        services.table_sit(table_id=table.pk, user=user)
    # italian deals every seated punter in and bets the minimum for whoever times out; two timeouts in a row
    # sit a player out, so the idle table plays its hands and then waits instead of spinning
    assert wait_for(lambda: state_of(table.pk).settled_through >= 2, 60), "hands did not settle by timeouts"
    assert wait_for(lambda: all(seat.sitting_out for seat in state_of(table.pk).seats), 45)
    state = state_of(table.pk)
    assert not state.hand_in_play and state.awaiting is None
    version = state.version
    assert not wait_for(lambda: state_of(table.pk).version != version, 3)
    call_command("reconcile")
