"""The core's records read and behave like the rules' facts: built only with named fields, never changed once
built, equal only to a record of the same kind (every record of the core is a msgspec Struct; issues #18, #28)."""

from __future__ import annotations

import inspect

import msgspec
import pytest

from rules import (
    EVENT_TYPES,
    Awaiting,
    BankerHand,
    CardDealt,
    Context,
    HandResult,
    HandState,
    NextSeed,
    Pledge,
    PunterHand,
    SatIn,
    SatOut,
    SeatState,
    TableConfig,
    TableState,
    WaitKind,
    initial_state,
)
from rules.codec import COMMAND_TYPES
from rules.state import replace

STATE_RECORDS = (SeatState, PunterHand, BankerHand, Awaiting, Pledge, HandState, TableState)


@pytest.mark.parametrize("cls", [*EVENT_TYPES, HandResult, *STATE_RECORDS, *COMMAND_TYPES], ids=lambda c: c.__name__)
def test_every_record_is_built_with_named_fields_only(cls: type) -> None:
    kinds = {p.kind for p in inspect.signature(cls).parameters.values()}
    assert kinds <= {inspect.Parameter.KEYWORD_ONLY}, cls.__name__


RECORDS = (*EVENT_TYPES, HandResult, *STATE_RECORDS, *COMMAND_TYPES, Context, NextSeed, TableConfig)


@pytest.mark.parametrize("cls", RECORDS, ids=lambda c: c.__name__)
def test_every_record_is_a_frozen_struct_that_refuses_unknown_fields(cls: type) -> None:
    assert issubclass(cls, msgspec.Struct), cls.__name__
    assert cls.__struct_config__.frozen and cls.__struct_config__.forbid_unknown_fields, cls.__name__


def test_a_positional_event_is_refused() -> None:
    with pytest.raises(TypeError):
        CardDealt(1, 2, "p", 0, False, "7O", True, 3)  # type: ignore[misc]


def test_a_built_event_or_state_cannot_be_changed() -> None:
    event = SatIn(seat=1, player_id="p", reason="ready")
    with pytest.raises(AttributeError):
        event.seat = 2  # type: ignore[misc]
    state = initial_state()
    with pytest.raises(AttributeError):
        state.version = 7  # type: ignore[misc]


def test_records_are_equal_by_kind_and_value() -> None:
    assert SatIn(seat=1, player_id="p", reason="timeout") != SatOut(seat=1, player_id="p", reason="timeout")
    assert SatIn(seat=1, player_id="p", reason="ready") == SatIn(seat=1, player_id="p", reason="ready")
    wait = Awaiting(seat=2, hand=0, kind=WaitKind.PLAY, deadline_ms=5)
    assert wait != (2, 0, WaitKind.PLAY, 5)  # a record, not a tuple


def test_replace_copies_with_changes_and_leaves_the_original() -> None:
    state = initial_state()
    later = replace(state, version=3, idle=True)
    assert (state.version, state.idle) == (0, False)
    assert (later.version, later.idle, later.seats) == (3, True, state.seats)
