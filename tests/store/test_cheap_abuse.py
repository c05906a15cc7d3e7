"""Cheap abuse is bounded (issue 11): toggling ``sit_out``/``sit_in`` does not open and abandon a hand per
toggle, each with a new seed, a snapshot and its events; a toggle that changes nothing
writes nothing."""

from __future__ import annotations

import pytest

from tables import services
from tables.models import Event, Hand
from tests.store.play import make_players, make_table, state_of

pytestmark = pytest.mark.django_db


def _counts(table_id: int) -> tuple[int, int, int]:
    return (
        Event.objects.filter(table_id=table_id).count(),
        Hand.objects.filter(table_id=table_id).count(),
        Event.objects.filter(table_id=table_id, type__in=("HandOpened", "HandAbandoned")).count(),
    )


@pytest.fixture
def window():
    """A classic player-bank table (bets before the deal) whose first hand waits for one punter's bet."""
    banker, punter = make_players(2, prefix="ab")
    table = make_table("classic")
    services.table_sit(table_id=table.pk, user=banker)
    services.table_sit(table_id=table.pk, user=punter)
    state = state_of(table.pk)
    assert state.hand is not None and state.hand.phase == "betting"
    return table, punter


def test_toggling_sit_out_and_sit_in_does_not_open_a_hand_per_toggle(window):
    table, punter = window
    hands_before = Hand.objects.filter(table=table).count()
    events_before, _, boundaries_before = _counts(table.pk)
    for _ in range(20):
        services.table_act(table_id=table.pk, user=punter, action="sit_out")
        services.table_act(table_id=table.pk, user=punter, action="sit_in")
    events, hands, boundaries = _counts(table.pk)
    assert hands == hands_before  # no hand opened (and abandoned) per toggle: no seed, no snapshot
    assert boundaries == boundaries_before
    assert events - events_before <= 40 * 2  # a couple of small events per toggle, no seeds, no deals


def test_the_abandoned_window_still_ends_at_its_deadline_and_play_goes_on(window):
    table, punter = window
    services.table_act(table_id=table.pk, user=punter, action="sit_out")
    services.table_act(table_id=table.pk, user=punter, action="sit_in")
    state = state_of(table.pk)
    assert state.hand is not None and state.hand.phase == "betting"  # the window waits for its deadline
    services.table_timeout(table_id=table.pk, version=state.version)
    assert Hand.objects.get(table=table, number=1).status == "abandoned"
    # the table is idle (RULES.md: an empty window does not spin hands); the punter's "ready" opens the next
    services.table_act(table_id=table.pk, user=punter, action="sit_in")
    after = state_of(table.pk)
    assert after.hand is not None and after.hand.number == 2 and after.hand.in_play


def test_sit_in_when_already_in_and_nothing_can_open_writes_nothing():
    (alone,) = make_players(1, prefix="ab1")
    table = make_table("classic")
    services.table_sit(table_id=table.pk, user=alone)
    before = _counts(table.pk)
    for _ in range(5):
        outcome = services.table_act(table_id=table.pk, user=alone, action="sit_in")
        assert list(outcome.events) == []
    assert _counts(table.pk) == before
