"""A hand's slice of its table's stream (DESIGN.md principle 10): the state before the hand's first command and
the events of every command from the one that opened it to the one that closed it, grouped to whole commands.

:func:`load_hand` reads that slice with bounded reads (never the table's later history); :func:`replay_hand`
folds it into the full table state after each event of the hand. Verification (``tables.verify``), the hand's
history (``tables.hand_reads``), the admin's step-through and ``manage.py replay_hand`` all read a hand here.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules import TableState, evolve, initial_state
from tables import loader, snapshots
from tables.models import Hand
from tables.store import StoredEvent, load_stream

_CLOSING_SLACK = 32  # events read past a hand's closing event at a time: the rest of the command that closed it


@dataclass(frozen=True, slots=True)
class HandEvents:
    """A hand's slice of its table's stream: the state before its first command and the commands' events."""

    hand: Hand
    start_state: TableState
    before: list[StoredEvent]  # every event of the stream before the first command of the hand
    events: list[StoredEvent]  # the events of every command from the one that opened the hand to the one that closed it
    opened: int  # version of HandOpened
    closed: int | None  # version of HandSettled / HandAbandoned


def command_start(event: StoredEvent) -> int:
    """The version of the first event of the command that appended ``event``: it names the command."""
    return int(event.metadata.get("command_version") or event.version)


def _cached_start(hand: Hand) -> TableState | None:
    """The state before the hand's first command, cached when the hand opened (None if unusable)."""
    if hand.start_state is None or hand.start_schema != snapshots.SNAPSHOT_SCHEMA or hand.start_version is None:
        return None
    return snapshots.state_from_db(
        hand.start_state,
        binding=snapshots.hand_start_binding(hand.table_id, hand.start_version),
        version=hand.start_version,
        what=f"the cached starting state of hand {hand.pk}",
    )


def _hand_stream(hand: Hand, *, after_version: int) -> list[StoredEvent]:
    """The table's events after ``after_version`` up to the end of the command that closed the hand, not the
    table's later history (a hand in play: up to the latest event)."""
    closed = hand.closed_version
    if closed is None:
        return load_stream(hand.table_id, after_version=after_version)
    upto = closed + _CLOSING_SLACK
    stream = load_stream(hand.table_id, after_version=after_version, upto_version=upto)
    # the read stopped at its bound inside the command that closed the hand: that command goes on
    while stream and stream[-1].version == upto and command_start(stream[-1]) <= closed:
        stream += load_stream(hand.table_id, after_version=upto, upto_version=upto + _CLOSING_SLACK)
        upto += _CLOSING_SLACK
    return stream


def load_hand(hand: Hand, *, full: bool = False) -> HandEvents:
    """The events of ``hand`` grouped to whole commands, and the state before them.

    The starting state comes from the cache written when the hand opened; ``full`` (or a missing or outdated
    cache) folds it from the table's first event instead, and then ``before`` holds every earlier event so the
    whole chain up to the hand is checked too.
    """
    start = None if full else _cached_start(hand)
    if start is not None:
        first = start.version + 1
        stream = _hand_stream(hand, after_version=max(first - 2, 0))
        before, rest = ([stream[0]], stream[1:]) if first > 1 else ([], stream)
    else:
        stream = _hand_stream(hand, after_version=0)
        first = command_start(stream[hand.opened_version - 1])
        before, rest = stream[: first - 1], stream[first - 1 :]
        start = initial_state()
        for stored in before:
            start = evolve(start, loader.decode(stored))
    upto = len(rest)
    if hand.closed_version is not None:
        # up to the end of the command that closed the hand
        closing = hand.closed_version - first
        batch = command_start(rest[closing])
        upto = closing + 1
        while upto < len(rest) and command_start(rest[upto]) == batch:
            upto += 1
    return HandEvents(hand, start, before, rest[:upto], hand.opened_version, hand.closed_version)


def replay_hand(hand: Hand) -> list[tuple[StoredEvent, TableState]]:
    """The state after each event of the hand, from HandOpened to its settlement (or the latest event)."""
    loaded = load_hand(hand)
    state = loaded.start_state
    steps: list[tuple[StoredEvent, TableState]] = []
    for stored in loaded.events:
        state = evolve(state, loader.decode(stored))
        if stored.version >= loaded.opened and (loaded.closed is None or stored.version <= loaded.closed):
            steps.append((stored, state))
    return steps
