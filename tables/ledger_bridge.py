"""The ledger entries a table's events imply, posted in the same transaction, each caused by its event.

A stake (bet, raise, split, Hungarian new hand) moves its reserves into the table's escrow; a settlement pays
the escrow out. The cause ``event:<table>:<version>`` is unique in the ledger, so no event can be posted twice,
and no event that moves chips exists without its postings (they commit or roll back together). Which chips an
event moves is the core's ``chip_moves``: the core's own wallet bookkeeping, these postings, the verifier's
check of them and the wallet previews all use it.
"""

from __future__ import annotations

from collections.abc import Sequence

from msgspec import structs

from ledger import services as ledger
from rules import (
    HOUSE,
    BetPlaced,
    Event,
    HandAbandoned,
    HandOpened,
    HandSettled,
    HandSplit,
    StakeRaised,
    chip_moves,
)
from tables.store import StoredEvent


def event_cause(table_id: int, version: int) -> str:
    """The ledger cause of the event at ``version`` of table ``table_id``."""
    return f"event:{table_id}:{version}"


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
            moves = chip_moves(event)  # the chips it moves: the punter's and the banker's reserves
            ledger.reserve_stake(
                cause=event_cause(table_id, stored.version),
                table_id=table_id,
                hand_id=hand_ids[number],
                punter=int(event.player_id),
                punter_amount=-moves.get(event.player_id, 0),
                banker=_user(event.banker_id),
                banker_amount=-moves.get(event.banker_id or HOUSE, 0),
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
