"""Folding events: the state after any event of a stream (``functools.reduce(evolve, events, initial)``)."""

from __future__ import annotations

from collections.abc import Iterable

from rules.events import Event
from rules.evolve import evolve
from rules.state import TableState, initial_state


def fold(events: Iterable[Event], state: TableState | None = None) -> TableState:
    """The state after applying ``events`` to ``state`` (default: the initial state)."""
    current = initial_state() if state is None else state
    for event in events:
        current = evolve(current, event)
    return current


def replay(events: Iterable[Event], state: TableState | None = None) -> list[TableState]:
    """The state after each event, in order (``replay(events)[i]`` is the state at version i + 1 from empty)."""
    current = initial_state() if state is None else state
    states: list[TableState] = []
    for event in events:
        current = evolve(current, event)
        states.append(current)
    return states
