"""One hand entry (a stake reserve or a settlement) posted through the database function ``ledger_hand_entry``.

The function (migration 0004) looks the cause up, locks the table escrow's balance row and the parties' rows,
reads the hand, checks and writes in one round trip. It writes nothing when it refuses, so no savepoint is
needed inside a caller's transaction: a refusal leaves it usable, and outside one the single statement is its
own transaction. On a refusal it answers with the hand's escrow as it read it under the lock
(:class:`HandEscrow`) and the parties' balances, for ``ledger.hands`` to say why.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db import connection, transaction
from django.utils.dateparse import parse_datetime

from ledger.accounts import AccountKey, create_missing
from ledger.errors import UnknownAccount
from ledger.journal import Entry, built, find_repeat
from ledger.models import Transaction

#: A party's ``(account code, balance)``, read under the lock, keyed by the party (a user id, None for the house).
Balances = dict[int | None, tuple[str, int]]


@dataclass
class HandEscrow:
    """What the ledger holds for one hand: read under the table escrow's lock."""

    settled: bool = False
    reserves: int = 0
    bankers: set[int | None] = field(default_factory=set)
    held: int = 0  # the hand's share of its table's escrow
    # Net movement per party: a user id (wallet), None (house bankroll), or an account code (anything else).
    moved: dict[int | str | None, int] = field(default_factory=lambda: defaultdict(int))


class _Refused(Exception):
    def __init__(self, answer: dict[str, Any]) -> None:
        self.answer = answer


def post_hand_entry(
    entry: Entry, legs: list[tuple[int | None, int]], *, banker: int | None = None, nets: dict[int, int] | None = None
) -> Transaction | tuple[HandEscrow, Balances]:
    """Post a hand entry through ``ledger_hand_entry`` (migration 0004): one statement, no savepoint.

    ``legs`` are the parties' signed amounts (a user id, None for the table's house bankroll); the escrow takes
    minus their sum. Returns the transaction (posted now, or the first one of a repeated cause), or, when the
    database refused it (writing nothing), the hand's state and the parties' ``(code, balance)`` for the caller
    to say why. Accounts used for the first time are created and the call made again, in a savepoint that a
    refusal rolls back (a refused entry leaves no trace, not even an empty account).
    """
    assert entry.table_id is not None and entry.hand_id is not None
    answer = _call(entry, legs, banker, nets)
    if answer["status"] == "missing":
        answer = _call_with_new_accounts(entry, legs, banker, nets)
    status = answer["status"]
    if status in ("repeat", "conflict", "raced"):
        repeat = find_repeat(entry.cause, entry.content_hash)
        assert repeat is not None, f"{status} without a transaction for {entry.cause}"
        return repeat
    if status == "posted":
        posted = [(row[0], row[1], row[2], row[3]) for row in answer["posted"]]
        created_at = parse_datetime(answer["created_at"])
        return built(entry, answer["id"], created_at, posted, details=answer["details"])
    return _refusal(answer, legs)


def _call_with_new_accounts(
    entry: Entry, legs: list[tuple[int | None, int]], banker: int | None, nets: dict[int, int] | None
) -> dict[str, Any]:
    """Create the entry's missing accounts (the table's escrow, the parties' wallets or the table's bankroll)
    and call again, in a savepoint rolled back if the call refuses; :class:`UnknownAccount` if still missing."""
    assert entry.table_id is not None
    keys = [AccountKey.escrow(entry.table_id)]
    keys += [AccountKey.table_bankroll(entry.table_id) if p is None else AccountKey.wallet(p) for p, _ in legs]
    try:
        with transaction.atomic():
            create_missing(keys)
            answer = _call(entry, legs, banker, nets)
            if answer["status"] == "refused":
                raise _Refused(answer)
    except _Refused as refused:
        answer = refused.answer
    if answer["status"] == "missing":
        raise UnknownAccount(f"the accounts of {entry.cause} could not be created")
    return answer


def _call(
    entry: Entry, legs: list[tuple[int | None, int]], banker: int | None, nets: dict[int, int] | None
) -> dict[str, Any]:
    """One call of ``ledger_hand_entry``: its answer (``status`` and what goes with it) as a dict."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT ledger_hand_entry(%s, %s, %s, %s, %s, %s, %s, %s::jsonb, %s, %s::bigint[], %s::bigint[], "
            "%s::jsonb)",
            [
                entry.kind,
                entry.cause,
                entry.content_hash,
                entry.memo,
                entry.table_id,
                entry.hand_id,
                entry.actor_id,
                json.dumps(entry.details),
                banker,
                [party for party, _ in legs],
                [amount for _, amount in legs],
                json.dumps(sorted((nets or {}).items())),
            ],
        )
        answer = cursor.fetchone()[0]
    return json.loads(answer) if isinstance(answer, str) else dict(answer)


def _refusal(answer: dict[str, Any], legs: list[tuple[int | None, int]]) -> tuple[HandEscrow, Balances]:
    """A refusal's answer read back: the hand's escrow and each leg's party's ``(code, balance)``."""
    hand = HandEscrow(
        settled=bool(answer["settled"]),
        reserves=int(answer["reserves"]),
        bankers={None if b is None else int(b) for b in answer["bankers"]},
        held=int(answer["held"]),
    )
    for user_id, code, amount in answer["moved"]:
        hand.moved[int(user_id) if user_id is not None else code] += int(amount)
    locked = answer["balances"]  # account id -> [code, balance]
    balances = {
        party: (str(locked[str(account_id)][0]), int(locked[str(account_id)][1]))
        for (party, _), account_id in zip(legs, answer["accounts"], strict=True)
    }
    return hand, balances
