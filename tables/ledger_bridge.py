"""The ledger entries a table's events imply, posted in the same transaction, each caused by its event.

A stake (bet, raise, split, Hungarian new hand) moves its reserves into the table's escrow; a settlement pays
the escrow out. The cause ``event:<table>:<version>`` is unique in the ledger, so no event can be posted twice,
and no event that moves chips exists without its postings (they commit or roll back together).
"""

from __future__ import annotations

from collections.abc import Sequence

from msgspec import structs

from ledger import services as ledger
from tables.rules import HOUSE, BetPlaced, Event, HandAbandoned, HandOpened, HandSettled, HandSplit, StakeRaised
from tables.store import StoredEvent


def event_cause(table_id: int, version: int) -> str:
    """The ledger cause of the event at ``version`` of table ``table_id``."""
    return f"event:{table_id}:{version}"


ESCROW = "escrow"


def chip_moves(event: Event) -> dict[str, int]:
    """The chips an event moves, by party: a player id, ``"house"`` (the bankroll) and ``"escrow"`` (the
    table's escrow); empty for an event that moves none. What is posted, verified and shown comes from here."""
    moves: dict[str, int] = {}
    if isinstance(event, (BetPlaced, StakeRaised, HandSplit)):
        if event.punter_reserve:
            moves[event.player_id] = -event.punter_reserve
        if event.banker_reserve:
            banker = event.banker_id or HOUSE
            moves[banker] = moves.get(banker, 0) - event.banker_reserve
        moves[ESCROW] = event.punter_reserve + event.banker_reserve
    elif isinstance(event, (HandSettled, HandAbandoned)):  # an abandoned hand returns its stakes, if any
        for party, amount in event.payouts.items():
            if amount:
                moves[party] = moves.get(party, 0) + amount
                moves[ESCROW] = moves.get(ESCROW, 0) - amount
    return moves


def wallets_after(wallets: dict[str, int], events: Sequence[Event]) -> dict[str, int]:
    """Wallet balances after ``events``, from the balances before them (as the command's context had them)."""
    after = dict(wallets)
    for event in events:
        for party, delta in chip_moves(event).items():
            if party in after:
                after[party] += delta
    return after


def _user(player_id: str | None) -> int | None:
    return None if player_id is None or player_id == HOUSE else int(player_id)


def post_ledger_entries(
    *, table_id: int, events: Sequence[tuple[StoredEvent, Event]], hand_ids: dict[int, int]
) -> None:
    """Post what ``events`` imply; ``hand_ids`` maps hand numbers to hand ids (the ledger's hand reference)."""
    number = min(hand_ids) if hand_ids else None  # the hand in play when the command started
    for stored, event in events:
        if isinstance(event, HandOpened):
            number = event.number
        elif isinstance(event, (BetPlaced, StakeRaised, HandSplit)):
            assert number is not None, "a stake outside a hand"
            index = event.new_hand if isinstance(event, HandSplit) else event.hand
            ledger.reserve_stake(
                cause=event_cause(table_id, stored.version),
                table_id=table_id,
                hand_id=hand_ids[number],
                punter=int(event.player_id),
                punter_amount=event.punter_reserve,
                banker=_user(event.banker_id),
                banker_amount=event.banker_reserve,
                memo=f"{type(event).__name__}: seat {event.seat} hand {index} stake {event.amount}",
            )
        elif isinstance(event, HandSettled):
            results = [{**structs.asdict(result), "user_id": int(result.player_id)} for result in event.results]
            ledger.post_settlement(
                cause=event_cause(table_id, stored.version),
                table_id=table_id,
                hand_id=hand_ids[event.number],
                payouts={_user(party): amount for party, amount in event.payouts.items()},
                results=results,
                memo=f"hand {event.number} settled",
            )
        elif isinstance(event, HandAbandoned) and any(event.payouts.values()):
            ledger.post_settlement(
                cause=event_cause(table_id, stored.version),
                table_id=table_id,
                hand_id=hand_ids[event.number],
                payouts={_user(party): amount for party, amount in event.payouts.items()},
                results=[],
                memo=f"hand {event.number} abandoned ({event.reason}): every stake returned",
            )
