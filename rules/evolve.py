"""``evolve(state, event) -> state``: apply one fact. No rules here: whatever decide computed is on the event.

Every event increments ``version``. ``awaiting`` is replaced by ``ActionAwaited`` and cleared by the events
that end every wait (betting closed, banker's turn, settlement, abandonment); between commands it is exact.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rules.events import (
    BankPassed,
    BankRetirementRequested,
    ClientSeedSet,
    Event,
    FirstBankerDrawn,
    LeaveRequested,
    PlayerTimedOut,
    SatIn,
    SatOut,
    SeatLeft,
    SeatTaken,
    StakeSet,
    TableCreated,
    TimeoutStreakReset,
)
from rules.evolve_end import END_HANDLERS
from rules.evolve_hand import HAND_HANDLERS
from rules.state import SeatState, TableState, replace


def _replace_seat(state: TableState, seat: int, **changes: Any) -> tuple[SeatState, ...]:
    return tuple(replace(s, **changes) if s.seat == seat else s for s in state.seats)


def _table_created(state: TableState, e: TableCreated) -> TableState:
    return replace(state, version=state.version + 1, config=e.config, stake=e.config.fixed_stake)


def _seat_taken(state: TableState, e: SeatTaken) -> TableState:
    seat = SeatState(
        seat=e.seat,
        player_id=e.player_id,
        username=e.username,
        client_seed=e.client_seed,
        client_seed_set_at=state.version + 1,
    )
    seats = tuple(sorted((*state.seats, seat), key=lambda s: s.seat))
    return replace(state, version=state.version + 1, seats=seats)


def _leave_requested(state: TableState, e: LeaveRequested) -> TableState:
    return replace(state, version=state.version + 1, seats=_replace_seat(state, e.seat, leaving=True))


def _seat_left(state: TableState, e: SeatLeft) -> TableState:
    seats = tuple(s for s in state.seats if s.seat != e.seat)
    return replace(state, version=state.version + 1, seats=seats)


def _sat_out(state: TableState, e: SatOut) -> TableState:
    seats = _replace_seat(state, e.seat, sitting_out=True, sit_out_reason=e.reason)
    return replace(state, version=state.version + 1, seats=seats)


def _sat_in(state: TableState, e: SatIn) -> TableState:
    seats = _replace_seat(state, e.seat, sitting_out=False, sit_out_reason=None, timeouts=0)
    return replace(state, version=state.version + 1, seats=seats)


def _client_seed_set(state: TableState, e: ClientSeedSet) -> TableState:
    version = state.version + 1
    seats = _replace_seat(state, e.seat, client_seed=e.client_seed, client_seed_set_at=version)
    return replace(state, version=version, seats=seats)


def _player_timed_out(state: TableState, e: PlayerTimedOut) -> TableState:
    return replace(state, version=state.version + 1, seats=_replace_seat(state, e.seat, timeouts=e.streak))


def _streak_reset(state: TableState, e: TimeoutStreakReset) -> TableState:
    return replace(state, version=state.version + 1, seats=_replace_seat(state, e.seat, timeouts=0))


def _first_banker(state: TableState, e: FirstBankerDrawn) -> TableState:
    return replace(state, version=state.version + 1, banker_seat=e.seat, last_banker_seat=e.seat, banker_retiring=False)


def _bank_passed(state: TableState, e: BankPassed) -> TableState:
    last = e.to_seat if e.to_seat is not None else (e.from_seat if e.from_seat is not None else state.last_banker_seat)
    return replace(
        state, version=state.version + 1, banker_seat=e.to_seat, last_banker_seat=last, banker_retiring=False
    )


def _retirement_requested(state: TableState, e: BankRetirementRequested) -> TableState:
    return replace(state, version=state.version + 1, banker_retiring=True)


def _stake_set(state: TableState, e: StakeSet) -> TableState:
    return replace(state, version=state.version + 1, stake=e.amount)


#: The state transition of each event type (``evolve`` dispatches on the exact type).
EVOLVERS: dict[type[Event], Callable[[TableState, Any], TableState]] = {
    TableCreated: _table_created,
    SeatTaken: _seat_taken,
    LeaveRequested: _leave_requested,
    SeatLeft: _seat_left,
    SatOut: _sat_out,
    SatIn: _sat_in,
    ClientSeedSet: _client_seed_set,
    PlayerTimedOut: _player_timed_out,
    TimeoutStreakReset: _streak_reset,
    FirstBankerDrawn: _first_banker,
    BankPassed: _bank_passed,
    BankRetirementRequested: _retirement_requested,
    StakeSet: _stake_set,
    **HAND_HANDLERS,
    **END_HANDLERS,
}


def evolve(state: TableState, event: Event) -> TableState:
    """The state after ``event``; ``version`` grows by one. Pure: ``state`` is not modified."""
    return EVOLVERS[type(event)](state, event)
