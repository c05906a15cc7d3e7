"""Given/when/then helpers for the rules core tests (no database, no Django)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec

from rules import (
    HOUSE,
    BetPlaced,
    Command,
    Context,
    DomainError,
    Event,
    HandSettled,
    HandSplit,
    StakeRaised,
    TableState,
    Timeout,
    fold,
    handle,
    make_table_config,
)
from rules.testing import rig_next_hand, seated_table

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "spec" / "scenarios.yaml"


def apply_ledger(wallets: dict[str, int], events: Sequence[Event]) -> None:
    """Move chips as the shell's ledger would: reserves out of wallets, payouts back in."""
    for e in events:
        if isinstance(e, (BetPlaced, StakeRaised, HandSplit)):
            wallets[e.player_id] -= e.punter_reserve
            bank = e.banker_id if e.banker_id is not None else HOUSE
            wallets[bank] = wallets.get(bank, 0) - e.banker_reserve
        elif isinstance(e, HandSettled):
            for party, amount in e.payouts.items():
                wallets[party] = wallets.get(party, 0) + amount


def entropy_for(n: int) -> str:
    """A deterministic stand-in for the shell's fresh CSPRNG entropy (64 lowercase hex)."""
    return hashlib.sha256(f"test-entropy-{n}".encode()).hexdigest()


class Table:
    """A table under test: ``given`` its players, ``when`` commands, ``then`` look at state and events."""

    def __init__(
        self,
        preset: str = "classic",
        *,
        players: Sequence[str] = ("B", "P1", "P2"),
        banker: str | None = "B",
        overrides: Mapping[str, object] | None = None,
        stock: Sequence[str] | None = None,
        wallet: int = 10_000,
        bank: str = "player",
        min_bet: int = 1,
        max_bet: int = 100,
        fixed_stake: int | None = None,
        max_seats: int | None = None,
    ) -> None:
        if fixed_stake is None and preset == "hungarian" and "stake_mode" not in (overrides or {}):
            fixed_stake = 10
        self.config = make_table_config(
            preset=preset,
            overrides=overrides,
            min_bet=min_bet,
            max_bet=max_bet,
            max_seats=max_seats if max_seats is not None else (8 if bank == "player" else 7),
            bank=bank,
            fixed_stake=fixed_stake,
        )
        self.events: list[Event] = []
        evs, self.state = seated_table(self.config, [(p, p) for p in players], banker=banker)
        self.events.extend(evs)
        if stock is not None:
            self.state = rig_next_hand(self.state, stock)
        self.wallets: dict[str, int] = {p: wallet for p in players}
        self.house_funded = False
        self.now_ms = 1_700_000_000_000
        self.count = 0
        self.last: list[Event] = []

    def ctx(self) -> Context:
        """A fresh context; an unfunded house bank (no "house" wallet given) stays unlimited."""
        self.count += 1
        wallets = {p: v for p, v in self.wallets.items() if p != HOUSE or self.house_funded}
        return Context(now_ms=self.now_ms, wallets=wallets, entropy=entropy_for(self.count))

    def when(self, command_type: type[Command], **fields: Any) -> list[Event]:
        """Send a command with a fresh context; fold its events; move the chips."""
        return self.send(command_type(**fields))

    def send(self, command: Command, context: Context | None = None) -> list[Event]:
        """Send ``command`` with ``context`` (a fresh one if None); fold its events; move the chips."""
        events, state = handle(command, self.state, self.ctx() if context is None else context)
        assert fold(events, self.state) == state, "handle's state must be the fold of its events"
        self.state = state
        self.events.extend(events)
        apply_ledger(self.wallets, events)
        self.last = events
        return events

    def refused(self, command_type: type[Command], **fields: Any) -> DomainError:
        """Send a command that must be refused: a domain error, no events, no change of state."""
        before = self.state
        command = command_type(**fields)
        try:
            handle(command, self.state, self.ctx())
        except DomainError as error:
            assert self.state is before
            return error
        raise AssertionError(f"{command!r} was accepted")

    def timeout(self) -> list[Event]:
        return self.send(Timeout(expected_version=self.state.version))

    def of_type(self, kind: type[Event], events: Sequence[Event] | None = None) -> list[Any]:
        return [e for e in (self.last if events is None else events) if isinstance(e, kind)]

    @property
    def hand(self) -> Any:
        assert self.state.hand is not None
        return self.state.hand

    def seat(self, player_id: str) -> int:
        s = self.state.seat_of(player_id)
        assert s is not None
        return s.seat


def settled_state(start: TableState, events: Sequence[Event]) -> TableState:
    """The state right after the last HandSettled of ``events`` folded onto ``start``."""
    index = max(i for i, e in enumerate(events) if isinstance(e, HandSettled))
    return fold(events[: index + 1], start)


def as_json(record: object) -> Any:
    """A view record as JSON reads it back (lists, not tuples): what a client of the API compares."""
    return msgspec.json.decode(msgspec.json.encode(record))
