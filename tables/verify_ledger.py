"""The ``ledger`` check of a hand's verification (``tables.verify``): the ledger holds exactly the postings the
hand's stakes and settlement imply (``rules.chip_moves`` of each event), and no others; a settled hand leaves
nothing in escrow.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection

from rules import ESCROW, HOUSE, Event, HandSettled, chip_moves
from tables.ledger_bridge import event_cause
from tables.models import Hand
from tables.store import StoredEvent


def _expected_postings(
    table_id: int, decoded: Sequence[tuple[StoredEvent, Event]], usernames: dict[str, str]
) -> dict[str, dict[str, int]]:
    """Cause -> account code -> amount of every posting the hand's events imply."""

    def account(party: str) -> str:
        if party == ESCROW:
            return f"escrow:table:{table_id}"
        return f"house:bankroll:table:{table_id}" if party == HOUSE else f"player:{usernames[party]}"

    expected: dict[str, dict[str, int]] = {}
    for stored, event in decoded:
        moves = chip_moves(event)
        if moves:
            expected[event_cause(table_id, stored.version)] = {account(p): v for p, v in moves.items() if v}
    return expected


def _posted_rows(hand: Hand) -> list[tuple[Any, ...]]:
    """The hand's entries with their postings and accounts, in one query: (cause, code, kind, user id, amount)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT t.cause, a.code, a.kind, a.user_id, p.amount FROM ledger_transaction t "
            "JOIN ledger_posting p ON p.transaction_id = t.id JOIN ledger_account a ON a.id = p.account_id "
            "WHERE t.table_id = %s AND t.hand_id = %s ORDER BY t.id, p.id",
            [hand.table_id, hand.pk],
        )
        return cursor.fetchall()


def _usernames(rows: Sequence[tuple[Any, ...]], decoded: Sequence[tuple[StoredEvent, Event]]) -> dict[str, str]:
    """Player id -> username of every party of the hand: from its wallet postings, else (a party with no posting
    at all) from the users."""
    usernames = {str(user_id): code.removeprefix("player:") for _, code, kind, user_id, _ in rows if kind == "wallet"}
    parties = {str(getattr(e, "player_id", "")) for _, e in decoded} | {
        str(p) for _, e in decoded if isinstance(e, HandSettled) for p in e.payouts
    }
    unknown = [int(p) for p in parties if p.isdigit() and p not in usernames]
    if unknown:
        usernames |= {
            str(pk): name for pk, name in get_user_model().objects.filter(pk__in=unknown).values_list("pk", "username")
        }
    return usernames


def check_ledger(hand: Hand, decoded: Sequence[tuple[StoredEvent, Event]]) -> str:
    """The ``ledger`` check: "ok" if the ledger's transactions of ``hand`` are exactly those its events
    (``decoded``, the hand's own) imply; else the first that is missing, differs or is not explained, or the chips
    left in escrow."""
    rows = _posted_rows(hand)
    expected = _expected_postings(hand.table_id, decoded, _usernames(rows, decoded))
    house = f"house:bankroll:table:{hand.table_id}"
    legs_of: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for cause, code, _kind, _user_id, amount in rows:
        # hands posted before the house banked each table from its own account used the shared one
        legs_of[cause][house if code == "house:bankroll" else code] += amount
    actual = {cause: {k: v for k, v in legs.items() if v} for cause, legs in legs_of.items()}
    for cause, legs in expected.items():
        if cause not in actual:
            return f"no ledger transaction for {cause}"
        if actual[cause] != legs:
            return f"transaction {cause} posts {actual[cause]}, the events imply {legs}"
    extra = sorted(set(actual) - set(expected))
    if extra:
        return f"ledger transactions not explained by the hand's events: {', '.join(extra)}"
    escrow = sum(legs.get(f"escrow:table:{hand.table_id}", 0) for legs in actual.values())
    if hand.status == "settled" and escrow != 0:
        return f"the hand leaves {escrow} chips in escrow"
    return "ok"
