"""TEST-ONLY seams. Nothing here is reachable from a command or an event.

Scenario tests need a known stock. :func:`rig_next_hand` returns a copy of a state whose *next* opened hand
deals the given cards first (then the rest of the pack in canonical order) instead of the published
shuffle. The rigged deck lives only in the in-memory state: the events still carry the real seed,
commitment and client seed, so verification (which recomputes the deck from the seed) would reject any
hand played this way. Production code never calls this module.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from gamemath.cards import is_card
from gamemath.enums import BankReason
from gamemath.shuffle import seed_commitment
from rules.config import TableConfig
from rules.draft import PLAIN_PREFIX
from rules.events import BankPassed, Event, SeatTaken, SeedCommitted, TableCreated
from rules.evolve import evolve
from rules.state import TableState, initial_state, replace


def rig_next_hand(state: TableState, stock: Sequence[str]) -> TableState:
    """A copy of ``state`` whose next opened hand deals ``stock`` first (test-only)."""
    if len(set(stock)) != len(stock) or not all(is_card(c) for c in stock):
        raise ValueError("a rigged stock holds distinct card codes")
    return replace(state, rigged_stock=tuple(stock))


def seated_table(
    config: TableConfig, players: Sequence[tuple[str, str]], *, banker: str | None = None
) -> tuple[list[Event], TableState]:
    """Fold the events of a table with ``players`` (id, username) in seats 1, 2, ... and ``banker`` holding
    the bank, without opening a hand (test-only: a real table draws its first banker)."""
    events: list[Event] = [TableCreated(config=config)]
    for number, (player_id, username) in enumerate(players, start=1):
        events.append(SeatTaken(seat=number, player_id=player_id, username=username, client_seed=player_id))
    if banker is not None:
        seat = 1 + [p for p, _ in players].index(banker)
        events.append(BankPassed(from_seat=None, to_seat=seat, player_id=banker, reason=BankReason.OFFERED))
    # hand 1's seed committed ahead, kept in plain text as the core does when no sealed seed is supplied
    seed = hashlib.sha256(("seated-table:" + ",".join(p for p, _ in players)).encode()).hexdigest()
    events.append(
        SeedCommitted(number=1, seed_commitment=seed_commitment(bytes.fromhex(seed)), sealed_seed=PLAIN_PREFIX + seed)
    )
    state = initial_state()
    for event in events:
        state = evolve(state, event)
    return events, state
