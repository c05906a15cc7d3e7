"""Reconciliation: re-derive every figure the ledger caches or implies, from the postings, and list any
difference. ``manage.py reconcile`` prints the report and exits non-zero on any difference.

The checks run in one REPEATABLE READ, READ ONLY transaction (when not nested in a caller's), so they see one
consistent snapshot while entries keep being posted. Their outcome is a ``ledger.reconcile_report.Report``.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from ledger.reconcile_report import Check, Report

CHECK_NAMES = (
    "trial balance",
    "transactions balanced",
    "balances equal postings",
    "running balances",
    "no negative wallets",
    "escrow only holds hands in play",
    "settled hands match their results",
    "every transaction accounted for by its cause",
)


def reconcile(*, limit: int = 20, on_check: Callable[[str], None] | None = None) -> Report:
    """Run every check; each lists at most ``limit`` differences (and counts them all). ``on_check`` is called
    with each check's name before it runs (progress)."""
    if connection.in_atomic_block:
        return _run(limit, on_check)
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        return _run(limit, on_check)


def _run(limit: int, on_check: Callable[[str], None] | None) -> Report:
    steps: list[Callable[[Any], Check]] = [
        _trial_balance,
        lambda cursor: _transactions_balanced(cursor, limit),
        lambda cursor: _balances_equal_postings(cursor, limit),
        lambda cursor: _running_balances(cursor, limit),
        lambda cursor: _no_negative_wallets(cursor, limit),
        lambda cursor: _escrow(cursor, limit),
        lambda cursor: _settled_hands(cursor, limit),
        lambda cursor: _accounted_for(cursor, limit),
    ]
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT (SELECT count(*) FROM ledger_account), (SELECT count(*) FROM ledger_transaction),
                      (SELECT count(*) FROM ledger_posting)"""
        )
        accounts, transactions, postings = cursor.fetchone()
        cursor.execute(
            "SELECT coalesce(sum(balance), 0), count(*) FILTER (WHERE a.code <> 'house:bankroll') "
            "FROM ledger_balance b JOIN ledger_account a ON a.id = b.account_id WHERE b.kind = 'bankroll'"
        )
        house_total, table_bankrolls = cursor.fetchone()
        checks = []
        for name, step in zip(CHECK_NAMES, steps, strict=True):
            if on_check is not None:
                on_check(name)
            checks.append(step(cursor))
    return Report(
        checks=checks,
        counts={"accounts": accounts, "transactions": transactions, "postings": postings},
        at=timezone.now().isoformat(timespec="seconds"),
        house_bankroll=int(house_total),
        table_bankrolls=int(table_bankrolls),
    )


def _trial_balance(cursor: Any) -> Check:
    check = Check("trial balance")
    cursor.execute("SELECT coalesce(sum(balance), 0) FROM ledger_balance")
    (balances,) = cursor.fetchone()
    cursor.execute("SELECT coalesce(sum(amount), 0) FROM ledger_posting")
    (posted,) = cursor.fetchone()
    check.summary = f"sum of all balances {balances}, sum of all postings {posted}"
    if balances != 0:
        check.add(f"the balances of all accounts sum to {balances}, not 0", 1)
    if posted != 0:
        check.add(f"all postings sum to {posted}, not 0", 1)
    return check


def _transactions_balanced(cursor: Any, limit: int) -> Check:
    check = Check("transactions balanced")
    cursor.execute(
        """SELECT t.id, t.cause, coalesce(sum(p.amount), 0), count(p.id)
             FROM ledger_transaction t LEFT JOIN ledger_posting p ON p.transaction_id = t.id
            GROUP BY t.id HAVING coalesce(sum(p.amount), 0) <> 0 OR count(p.id) = 0
            ORDER BY t.id"""
    )
    for tx_id, cause, total, count in cursor.fetchall():
        if count == 0:
            check.add(f"transaction {tx_id} ({cause}) has no postings", limit)
        else:
            check.add(f"transaction {tx_id} ({cause}): postings sum to {total}", limit)
    check.summary = "every transaction's postings sum to 0" if check.ok else f"{check.total_differences} bad"
    return check


def _balances_equal_postings(cursor: Any, limit: int) -> Check:
    check = Check("balances equal postings")
    cursor.execute(
        """SELECT a.code, b.balance, coalesce(s.total, 0), s.last_after
             FROM ledger_account a
             LEFT JOIN ledger_balance b ON b.account_id = a.id
             LEFT JOIN (SELECT account_id, sum(amount) AS total,
                               (array_agg(balance_after ORDER BY id DESC))[1] AS last_after
                          FROM ledger_posting GROUP BY account_id) s ON s.account_id = a.id
            WHERE b.balance IS DISTINCT FROM coalesce(s.total, 0)
               OR (s.last_after IS NOT NULL AND s.last_after <> b.balance)
            ORDER BY a.id"""
    )
    for code, cached, total, last_after in cursor.fetchall():
        if cached is None:
            check.add(f"{code}: no balance row (postings sum to {total})", limit)
        else:
            check.add(
                f"{code}: cached balance {cached}, postings sum to {total}, last balance_after {last_after}",
                limit,
            )
    check.summary = (
        "every cached balance equals the sum of its account's postings"
        if check.ok
        else f"{check.total_differences} account(s) differ"
    )
    return check


def _running_balances(cursor: Any, limit: int) -> Check:
    check = Check("running balances")
    cursor.execute(
        """SELECT s.id, a.code, s.balance_after, s.running
             FROM (SELECT id, account_id, balance_after,
                          sum(amount) OVER (PARTITION BY account_id ORDER BY id) AS running
                     FROM ledger_posting) s
             JOIN ledger_account a ON a.id = s.account_id
            WHERE s.balance_after <> s.running
            ORDER BY s.id"""
    )
    for posting_id, code, after, running in cursor.fetchall():
        check.add(f"posting {posting_id} on {code}: balance_after {after}, running sum {running}", limit)
    check.summary = (
        "every posting's balance_after is its account's running sum"
        if check.ok
        else f"{check.total_differences} posting(s) differ"
    )
    return check


def _no_negative_wallets(cursor: Any, limit: int) -> Check:
    check = Check("no negative wallets")
    cursor.execute(
        """SELECT a.code, b.balance FROM ledger_balance b JOIN ledger_account a ON a.id = b.account_id
            WHERE b.kind IN ('wallet', 'escrow') AND b.balance < 0 ORDER BY a.id"""
    )
    for code, amount in cursor.fetchall():
        check.add(f"{code} is at {amount}", limit)
    check.summary = "no wallet or escrow below 0" if check.ok else f"{check.total_differences} below 0"
    return check


def _escrow(cursor: Any, limit: int) -> Check:
    """A table's escrow holds exactly the reserves of its hands in play (reserved, not yet settled); a settled
    hand leaves nothing in escrow; no chips sit in escrow outside a hand."""
    check = Check("escrow only holds hands in play")
    cursor.execute(
        """SELECT t.table_id, t.hand_id, bool_or(t.kind = 'hand_settlement'),
                  coalesce(sum(p.amount) FILTER (WHERE a.kind = 'escrow' AND a.table_id = t.table_id), 0),
                  count(*) FILTER (WHERE a.kind = 'escrow' AND a.table_id IS DISTINCT FROM t.table_id)
             FROM ledger_transaction t
             JOIN ledger_posting p ON p.transaction_id = t.id
             JOIN ledger_account a ON a.id = p.account_id
            WHERE t.hand_id IS NOT NULL
            GROUP BY t.table_id, t.hand_id
            ORDER BY t.table_id, t.hand_id"""
    )
    in_play: dict[int, int] = defaultdict(int)
    hands_in_play = 0
    for table_id, hand_id, settled, held, foreign in cursor.fetchall():
        if foreign:
            check.add(f"hand {hand_id} of table {table_id} posts to another table's escrow", limit)
        if settled and held != 0:
            check.add(f"hand {hand_id} of table {table_id} is settled but leaves {held} in escrow", limit)
        elif not settled:
            hands_in_play += 1
            in_play[table_id] += held
            if held < 0:
                check.add(f"hand {hand_id} of table {table_id} (in play) holds {held}", limit)
    cursor.execute(
        """SELECT a.table_id, a.code, b.balance FROM ledger_account a JOIN ledger_balance b ON b.account_id = a.id
            WHERE a.kind = 'escrow' ORDER BY a.table_id"""
    )
    tables = 0
    for table_id, code, amount in cursor.fetchall():
        tables += 1
        if amount != in_play.get(table_id, 0):
            check.add(
                f"{code} holds {amount} but its hands in play hold {in_play.get(table_id, 0)}"
                f" (difference {amount - in_play.get(table_id, 0)})",
                limit,
            )
    check.summary = f"{tables} table escrow(s), {hands_in_play} hand(s) in play holding {sum(in_play.values())}"
    return check


def _settled_hands(cursor: Any, limit: int) -> Check:
    """Over a settled hand's entries (its reserves and its settlement), each party's account changes by its
    net in the stored results: a punter by the sum of his rows' nets, the banker (the house bankroll for a
    house bank: any of its bankroll accounts, ``house:bankroll`` or the table's ``house:bankroll:table:<id>``)
    by minus the sum of all nets, anything else (the escrow included) by 0."""
    check = Check("settled hands match their results")
    settled = 0
    with connection.chunked_cursor() as stream:
        stream.execute(
            """SELECT s.table_id, s.hand_id, s.id, s.details::text,
                      (SELECT json_agg(DISTINCT r.details ->> 'banker')
                         FROM ledger_transaction r
                        WHERE r.table_id = s.table_id AND r.hand_id = s.hand_id AND r.kind = 'stake_reserve'
                      )::text,
                      (SELECT json_agg(json_build_array(a.kind, a.code, a.user_id, m.total))
                         FROM (SELECT p.account_id, sum(p.amount) AS total
                                 FROM ledger_transaction t JOIN ledger_posting p ON p.transaction_id = t.id
                                WHERE t.table_id = s.table_id AND t.hand_id = s.hand_id
                                GROUP BY p.account_id) m
                         JOIN ledger_account a ON a.id = m.account_id
                      )::text
                 FROM ledger_transaction s
            WHERE s.kind = 'hand_settlement'
            ORDER BY s.id"""
        )
        while rows := stream.fetchmany(500):
            for table_id, hand_id, tx_id, details, bankers, moves in rows:
                settled += 1
                for text in _hand_differences(details, bankers, moves):
                    check.add(f"hand {hand_id} of table {table_id} (settlement {tx_id}): {text}", limit)
    check.summary = f"{settled} settled hand(s)" + ("" if check.ok else f", {check.total_differences} differences")
    return check


def _hand_differences(details_json: str, bankers_json: str | None, moves_json: str | None) -> list[str]:
    details = json.loads(details_json)
    bankers = json.loads(bankers_json) if bankers_json else []
    moves = json.loads(moves_json) if moves_json else []
    if len(bankers) != 1:
        return [f"its reserves name {len(bankers)} bankers: {bankers}"]
    banker = "house:bankroll" if bankers[0] is None else f"user {int(bankers[0])}"
    expected: dict[str, int] = defaultdict(int)
    try:
        for row in details.get("results", []):
            expected[f"user {int(row['user_id'])}"] += int(row["net"])
            expected[banker] -= int(row["net"])
    except (KeyError, TypeError, ValueError):
        return ["its stored results are malformed"]
    actual: dict[str, int] = defaultdict(int)
    names: dict[str, str] = {}
    for kind, code, user_id, total in moves:
        party = f"user {user_id}" if kind == "wallet" else "house:bankroll" if kind == "bankroll" else code
        actual[party] += total
        names[party] = code
    differences = []
    for party in sorted({*expected, *actual}):
        if expected.get(party, 0) != actual.get(party, 0):
            name = names.get(party, party)
            differences.append(f"{name} changed by {actual.get(party, 0)}, its result says {expected.get(party, 0)}")
    return differences


# Each transaction's postings as its cause explains them (issue #43): a hand entry moves exactly what the stored event
# its cause names moves (``ledger_event_moves``, the function ``ledger_hand_entry`` checks with: parties' legs, the
# escrow taking the rest); a deposit or withdrawal moves chips between the cage and a wallet, and it and a correction
# name the staff member who made them; a sweep moves chips between house bankrolls only.
_UNACCOUNTED = """
WITH entries AS (
    SELECT t.id, t.kind, t.cause, t.table_id, t.actor_id,
           coalesce(jsonb_agg(jsonb_build_array(CASE WHEN a.kind = 'wallet' THEN a.user_id END, p.amount)
                              ORDER BY CASE WHEN a.kind = 'wallet' THEN a.user_id END NULLS FIRST, p.amount)
                    FILTER (WHERE a.kind <> 'escrow'), '[]'::jsonb) AS legs,
           bool_and(a.kind = 'wallet' OR a.code IN ('escrow:table:' || t.table_id,
                                                    'house:bankroll:table:' || t.table_id)) AS hand_accounts,
           bool_and(a.kind = 'wallet' OR a.code = 'house:cage') AS cage_accounts,
           bool_and(a.kind = 'bankroll') AS bankrolls_only
      FROM ledger_transaction t
      JOIN ledger_posting p ON p.transaction_id = t.id
      JOIN ledger_account a ON a.id = p.account_id
     GROUP BY t.id
)
SELECT e.id, e.kind, e.cause FROM entries e LEFT JOIN auth_user u ON u.id = e.actor_id
 WHERE CASE
        WHEN e.kind IN ('stake_reserve', 'hand_settlement') THEN
             NOT e.hand_accounts
             OR coalesce(ledger_event_moves(e.table_id, e.cause) ->> 'kind', '') <> e.kind
             OR ledger_event_moves(e.table_id, e.cause) -> 'legs' <> e.legs
        WHEN e.kind IN ('deposit', 'withdrawal') THEN NOT e.cage_accounts OR u.id IS NULL OR NOT u.is_staff
        WHEN e.kind = 'correction' THEN u.id IS NULL OR NOT u.is_staff
        WHEN e.kind = 'bankroll_sweep' THEN NOT e.bankrolls_only OR e.cause NOT LIKE 'sweep:%%'
        ELSE true
       END
 ORDER BY e.id
"""


def _accounted_for(cursor: Any, limit: int) -> Check:
    """Every transaction's postings are what its cause explains (:data:`_UNACCOUNTED`): one written by a role that
    may bypass the functions and privileges (the owner, a superuser) without a cause that accounts for it is
    listed."""
    check = Check("every transaction accounted for by its cause")
    cursor.execute(_UNACCOUNTED)
    for transaction_id, kind, cause in cursor.fetchall():
        check.add(f"transaction #{transaction_id} ({kind}, {cause}) is not what its cause moves", limit)
    check.summary = (
        "every transaction is what its event or its staff member's entry moves"
        if check.ok
        else f"{check.total_differences} transaction(s) unaccounted for"
    )
    return check
