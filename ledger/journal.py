"""Writing journal entries: idempotency by cause, then the transaction row and its postings.

Every service goes through :func:`find_repeat` (before taking locks) and :func:`write` (after locking the
accounts and checking the entry). ``write`` inserts the transaction with ``ON CONFLICT (cause) DO NOTHING``,
so a concurrent request with the same cause waits for the first one to commit and then finds it, instead of
failing on the unique index.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections

from ledger.errors import IdempotencyConflict, InvalidEntry
from ledger.models import Posting, Transaction


def fingerprint(content: Mapping[str, Any]) -> str:
    """The hash of an entry's content (everything but its memo): a repeat of a cause must match it."""
    try:
        canonical = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise InvalidEntry(f"the entry's content is not plain JSON: {error}") from error
    return hashlib.sha256(canonical.encode()).hexdigest()


def find_repeat(cause: str, content_hash: str, *, using: str = DEFAULT_DB_ALIAS) -> Transaction | None:
    """The transaction already posted for this cause, if any; raises :class:`IdempotencyConflict` if it was
    posted with different content. ``using``: the connection's alias (the cashier's: ``ledger.cashier_role``)."""
    # the common case is "not posted yet": one plain index lookup, no model built
    with connections[using].cursor() as cursor:
        cursor.execute("SELECT id, fingerprint FROM ledger_transaction WHERE cause = %s", [cause])
        row = cursor.fetchone()
    if row is None:
        return None
    if row[1] != content_hash:
        raise IdempotencyConflict(
            f"{cause!r} was already posted with different content",
            {"cause": cause, "transaction_id": row[0]},
        )
    existing = Transaction.objects.using(using).get(pk=row[0])
    existing.posted = list(existing.postings.order_by("id"))
    return existing


@dataclass(frozen=True)
class Entry:
    """A journal entry to write: the transaction's columns."""

    kind: str
    cause: str
    content_hash: str
    memo: str = ""
    hand_id: int | None = None
    table_id: int | None = None
    actor_id: int | None = None
    details: dict[str, Any] = field(default_factory=dict)


def write(entry: Entry, legs: Sequence[tuple[int, int]], *, using: str = DEFAULT_DB_ALIAS) -> Transaction:
    """Insert the transaction and its postings ``(account_id, amount)`` in order. The caller holds the
    balance rows of every account in ``legs`` locked; the posting trigger updates them and sets each
    posting's ``balance_after``. If the cause was posted meanwhile, returns that transaction instead (or
    raises :class:`IdempotencyConflict`) and writes nothing. The application's role may not insert either (only
    the cashier's role writes through here: ``ledger.cashier_role``)."""
    with connections[using].cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO ledger_transaction
                   (kind, memo, cause, fingerprint, hand_id, table_id, actor_id, details)
            VALUES (%s, %s, %s, %s, %s, %s, %s, %s::jsonb)
            ON CONFLICT (cause) DO NOTHING
            RETURNING id, created_at
            """,
            [
                entry.kind,
                entry.memo,
                entry.cause,
                entry.content_hash,
                entry.hand_id,
                entry.table_id,
                entry.actor_id,
                json.dumps(entry.details),
            ],
        )
        inserted = cursor.fetchone()
        if inserted is None:
            repeat = find_repeat(entry.cause, entry.content_hash, using=using)
            assert repeat is not None, "ON CONFLICT without a conflicting row"
            return repeat
        transaction_id, created_at = inserted
        cursor.execute(
            """
            INSERT INTO ledger_posting (transaction_id, account_id, amount, balance_after)
            SELECT %s, leg.account_id, leg.amount, 0
              FROM unnest(%s::bigint[], %s::bigint[]) WITH ORDINALITY AS leg (account_id, amount, n)
             ORDER BY leg.n
            RETURNING id, account_id, amount, balance_after
            """,
            [transaction_id, [a for a, _ in legs], [m for _, m in legs]],
        )
        posted = cursor.fetchall()
    return built(entry, transaction_id, created_at, posted, using=using)


def built(
    entry: Entry,
    transaction_id: int,
    created_at: Any,
    posted: Sequence[tuple[int, int, int, int]],
    *,
    details: dict[str, Any] | None = None,
    using: str = DEFAULT_DB_ALIAS,
) -> Transaction:
    """The Transaction (with ``posted``: ``(id, account_id, amount, balance_after)`` in order) just written."""
    transaction = Transaction(
        id=transaction_id,
        kind=entry.kind,
        memo=entry.memo,
        cause=entry.cause,
        fingerprint=entry.content_hash,
        hand_id=entry.hand_id,
        table_id=entry.table_id,
        actor_id=entry.actor_id,
        created_at=created_at,
        details=entry.details if details is None else details,
    )
    transaction._state.adding = False
    transaction._state.db = using
    transaction.posted = [
        Posting(id=pk, transaction_id=transaction_id, account_id=account_id, amount=amount, balance_after=after)
        for pk, account_id, amount, after in posted
    ]
    for posting in transaction.posted:
        posting._state.adding = False
        posting._state.db = using
    return transaction
