"""Cheap abuse is bounded (issue 11): toggling ``sit_out``/``sit_in`` does not open and abandon a hand per
toggle, each with a new seed, a snapshot and its events; a toggle that changes nothing writes nothing; the hand
history and verify read only the hand's own events, not the table's later history."""

from __future__ import annotations

import random

import pytest

from rules import IllegalAction
from tables import hand_events, hand_reads, services, verify
from tables.models import Event, Hand
from tables.verify import verification_ok
from tests.support.play import make_players, make_table, play_hands, state_of

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
    services.table_timeout(table_id=table.pk, version=state.version, now_ms=state.awaiting.deadline_ms)
    assert Hand.objects.get(table=table, number=1).status == "abandoned"
    # the table is idle (RULES.md: an empty window does not spin hands); the punter's "ready" opens the next
    services.table_act(table_id=table.pk, user=punter, action="sit_in")
    after = state_of(table.pk)
    assert after.hand is not None and after.hand.number == 2 and after.hand.in_play


def test_sit_in_when_already_in_and_nothing_can_open_is_refused_and_writes_nothing():
    (alone,) = make_players(1, prefix="ab1")
    table = make_table("classic")
    services.table_sit(table_id=table.pk, user=alone)
    before = _counts(table.pk)
    for _ in range(5):  # API.md v1.2: offered and accepted only when it changes something
        with pytest.raises(IllegalAction):
            services.table_act(table_id=table.pk, user=alone, action="sit_in")
    assert _counts(table.pk) == before


def _closing_command_end(hand: Hand) -> int:
    """The last version of the command that closed ``hand``."""
    closing = Event.objects.get(table_id=hand.table_id, version=hand.closed_version)
    batch = closing.metadata.get("command_version") or closing.version
    versions = Event.objects.filter(table_id=hand.table_id, version__gte=closing.version).values_list(
        "version", "metadata__command_version"
    )
    return max(v for v, started in versions if (started or v) == batch)


@pytest.mark.parametrize("full", [False, True])
def test_verify_and_the_hand_history_read_only_the_hands_own_events(monkeypatch, full):
    players = make_players(3, prefix="rd")
    table = make_table("classic")
    play_hands(table, players, 6, random.Random(5))
    hand = Hand.objects.get(table=table, number=1)
    assert Event.objects.filter(table=table).count() > _closing_command_end(hand) + hand_events._CLOSING_SLACK + 20
    read: list[int] = []
    real = hand_events.load_stream

    def recording(*args, **kwargs):
        events = real(*args, **kwargs)
        read.extend(e.version for e in events)
        return events

    monkeypatch.setattr(hand_events, "load_stream", recording)
    assert verification_ok(verify.verify_hand(hand, record=False, full=full))
    hand_events.replay_hand(hand)
    hand_reads.hand_read(hand_id=hand.pk, user=players[0])  # GET /hands/{id}
    assert read and max(read) <= _closing_command_end(hand) + hand_events._CLOSING_SLACK  # one bounded read past it
