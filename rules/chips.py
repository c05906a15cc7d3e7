"""Which chips an event moves: the one answer the core's own wallet bookkeeping, the shell's ledger postings,
the verifier and the wallet previews all use.

A stake (bet, raise, split, Hungarian new hand) moves both reserves out of the wallets into the table's escrow;
a settlement, or an abandoned hand that returns its stakes, pays the escrow out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rules.events import HOUSE, BetPlaced, Event, HandAbandoned, HandSettled, HandSplit, StakeRaised

#: The table's escrow, as a party of :func:`chip_moves`.
ESCROW = "escrow"
_STAKES = (BetPlaced, StakeRaised, HandSplit)
_PAYOUTS = (HandSettled, HandAbandoned)
#: The types of the events that may move chips (every other event moves none).
CHIP_EVENTS: frozenset[type[Event]] = frozenset((*_STAKES, *_PAYOUTS))


def chip_moves(event: Event) -> dict[str, int]:
    """The chips ``event`` moves, by party: a player id, ``"house"`` (the bankroll) and ``"escrow"`` (the table's
    escrow); empty for an event that moves none. The amounts sum to zero."""
    moves: dict[str, int] = {}
    if type(event) not in CHIP_EVENTS:  # most events move none (an exact type: an isinstance that misses is slow)
        return moves
    if isinstance(event, _STAKES):
        if event.punter_reserve:
            moves[event.player_id] = -event.punter_reserve
        if event.banker_reserve:
            banker = event.banker_id or HOUSE
            moves[banker] = moves.get(banker, 0) - event.banker_reserve
        moves[ESCROW] = event.punter_reserve + event.banker_reserve
    elif isinstance(event, _PAYOUTS):  # an abandoned hand returns its stakes, if any
        for party, amount in event.payouts.items():
            if amount:
                moves[party] = moves.get(party, 0) + amount
                moves[ESCROW] = moves.get(ESCROW, 0) - amount
    return moves


def wallets_after(wallets: Mapping[str, int], events: Sequence[Event]) -> dict[str, int]:
    """Wallet balances after ``events``, from the balances before them (as a command's context has them); a
    party not in ``wallets`` stays out."""
    after = dict(wallets)
    for event in events:
        for party, delta in chip_moves(event).items():
            if party in after:
                after[party] += delta
    return after
