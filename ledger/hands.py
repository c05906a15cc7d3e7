"""Stakes and settlements: a hand's chips go into its table's escrow when stakes are placed and all come out
when it is settled.

Every hand entry locks the table's escrow balance row, so the hand's state (read after taking the lock) cannot
change underneath it: a stake and a settlement of the same hand are serialised.

An entry is one call of the database function ``ledger_hand_entry`` (migration 0004), which looks the cause
up, locks the balance rows, reads the hand, checks and writes in one round trip. It writes nothing when it
refuses, so no savepoint is needed inside a caller's transaction: a refusal leaves it usable, and outside one
the single statement is its own transaction. The checks here only word the refusal the database decided.

The house banks each table from that table's own bankroll account (``house:bankroll:table:<id>``, a
sub-account of ``house:bankroll``): house-banked tables never wait on one shared row.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db import connection, transaction
from django.utils.dateparse import parse_datetime

from ledger.accounts import AccountKey, UserRef, check_int, create_missing, user_id_of
from ledger.errors import (
    BankCannotCover,
    HandAlreadySettled,
    InsufficientFunds,
    InvalidEntry,
    LedgerInvariantError,
    SettlementMismatch,
    UnknownAccount,
)
from ledger.journal import Entry, built, find_repeat, fingerprint
from ledger.models import Transaction, TransactionKind
from ledger.validation import check_cause, non_negative


def reserve_stake(
    *,
    cause: str,
    table_id: int,
    hand_id: int,
    punter: UserRef,
    punter_amount: int,
    banker: UserRef | None,
    banker_amount: int,
    memo: str = "",
) -> Transaction:
    """Move a stake's worst cases into the table's escrow: ``punter_amount`` (the most the punter can lose)
    from the punter's wallet, and ``banker_amount`` (the most the banker can lose on it) from the banker's
    wallet, or from the house bankroll when ``banker`` is None (the bankroll may go negative). Either amount
    may be 0. Refused, writing nothing, with :class:`InsufficientFunds` if the punter is short and
    :class:`BankCannotCover` if the player banker is short."""
    cause = check_cause(cause)
    table_id, hand_id = check_int(table_id, "table_id"), check_int(hand_id, "hand_id")
    punter_amount = non_negative(punter_amount, "punter_amount")
    banker_amount = non_negative(banker_amount, "banker_amount")
    punter_id = user_id_of(punter)
    banker_id = None if banker is None else user_id_of(banker)
    if punter_amount == 0 and banker_amount == 0:
        raise InvalidEntry("a stake reserve moves some chips", {"field": "punter_amount"})
    if banker_id == punter_id:
        raise InvalidEntry("the punter cannot bank his own stake", {"field": "banker"})
    content = {
        "kind": TransactionKind.STAKE_RESERVE,
        "table_id": table_id,
        "hand_id": hand_id,
        "punter": punter_id,
        "punter_amount": punter_amount,
        "banker": banker_id,
        "banker_amount": banker_amount,
    }
    legs: list[tuple[int | None, int]] = []
    legs += [(punter_id, -punter_amount)] if punter_amount else []
    legs += [(banker_id, -banker_amount)] if banker_amount else []
    entry = Entry(
        kind=TransactionKind.STAKE_RESERVE,
        cause=cause,
        content_hash=fingerprint(content),
        memo=memo,
        hand_id=hand_id,
        table_id=table_id,
        actor_id=punter_id,
        details={
            "punter": punter_id,
            "punter_amount": punter_amount,
            "banker": banker_id,
            "banker_amount": banker_amount,
        },
    )
    refused = _post(entry, legs, banker=banker_id)
    if isinstance(refused, Transaction):
        return refused
    hand, balances = refused
    if hand.settled:
        raise HandAlreadySettled(f"hand {hand_id} of table {table_id} is already settled", content)
    if hand.bankers and hand.bankers != {banker_id}:
        raise LedgerInvariantError(
            f"hand {hand_id} is banked by {sorted(hand.bankers, key=_party_order)}, not {banker_id}", content
        )
    for party, amount, error in (
        (punter_id, punter_amount, InsufficientFunds),
        (banker_id, banker_amount, BankCannotCover),
    ):
        if party is not None and amount and balances[party][1] < amount:
            code, balance = balances[party]
            raise error(
                f"{code} holds {balance} chips, the stake needs {amount}"
                if error is InsufficientFunds
                else f"the banker {code} holds {balance} chips, covering the stake needs {amount}",
                {"account": code, "balance": balance, "amount": amount},
            )
    raise LedgerInvariantError(f"the ledger refused the stake reserve {cause}", content)


def post_settlement(
    *,
    cause: str,
    table_id: int,
    hand_id: int,
    payouts: Mapping[int | None, int],
    results: list[dict[str, Any]],
    memo: str = "",
) -> Transaction:
    """Empty the hand's escrow: pay each party (a user id, or None for the house bankroll) its payout.

    ``results`` are the hand's results (API.md), one row per punter hand, each with at least ``user_id`` and
    ``net``; the banker's net is minus their sum. Refused with :class:`SettlementMismatch` unless the payouts
    add up to exactly what the hand holds in escrow (the sum of its escrow postings) and each party's payout
    is what it reserved plus its net; with :class:`HandAlreadySettled` for a second settlement."""
    cause = check_cause(cause)
    table_id, hand_id = check_int(table_id, "table_id"), check_int(hand_id, "hand_id")
    clean_payouts = _check_payouts(payouts)
    nets = _check_results(results)
    content = {
        "kind": TransactionKind.HAND_SETTLEMENT,
        "table_id": table_id,
        "hand_id": hand_id,
        "payouts": [[party, amount] for party, amount in sorted(clean_payouts.items(), key=_party_item)],
        "results": results,
    }
    entry = Entry(
        kind=TransactionKind.HAND_SETTLEMENT,
        cause=cause,
        content_hash=fingerprint(content),
        memo=memo,
        hand_id=hand_id,
        table_id=table_id,
        details={
            "banker": None,  # set below from the hand's reserves when known
            "payouts": [{"user_id": p, "amount": a} for p, a in sorted(clean_payouts.items(), key=_party_item)],
            "results": results,
        },
    )
    legs = [(party, amount) for party, amount in sorted(clean_payouts.items(), key=_party_item) if amount]
    refused = _post(entry, legs, nets=nets)
    if isinstance(refused, Transaction):
        return refused
    hand, _balances = refused
    where = {"table_id": table_id, "hand_id": hand_id}
    if hand.settled:
        raise HandAlreadySettled(f"hand {hand_id} of table {table_id} is already settled", where)
    if not hand.reserves:
        raise SettlementMismatch(f"hand {hand_id} of table {table_id} has no stake reserves", where)
    paid = sum(clean_payouts.values())
    if paid != hand.held:
        raise SettlementMismatch(
            f"the payouts add up to {paid} but hand {hand_id} holds {hand.held} in escrow",
            {**where, "held": hand.held, "paid": paid},
        )
    if len(hand.bankers) != 1:
        raise LedgerInvariantError(f"hand {hand_id} has reserves for several bankers: {hand.bankers}", where)
    (banker,) = hand.bankers
    expected: dict[int | str | None, int] = {party: -moved for party, moved in hand.moved.items()}
    for party, net in [*nets.items(), (banker, -sum(nets.values()))]:
        expected[party] = expected.get(party, 0) + net
    paid_to: dict[int | str | None, int] = {party: amount for party, amount in clean_payouts.items()}
    differences = [
        {"party": party, "expected": expected.get(party, 0), "payout": paid_to.get(party, 0)}
        for party in sorted({*expected, *paid_to}, key=_party_order)
        if expected.get(party, 0) != paid_to.get(party, 0)
    ]
    if differences:
        raise SettlementMismatch(
            f"the payouts of hand {hand_id} do not match its results (reserve + net per party)",
            {**where, "differences": differences},
        )
    raise LedgerInvariantError(f"the ledger refused the settlement {cause}", where)


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


def _post(
    entry: Entry, legs: list[tuple[int | None, int]], *, banker: int | None = None, nets: dict[int, int] | None = None
) -> Transaction | tuple[HandEscrow, dict[int | None, tuple[str, int]]]:
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


def _call(
    entry: Entry, legs: list[tuple[int | None, int]], banker: int | None, nets: dict[int, int] | None
) -> dict[str, Any]:
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


def _refusal(
    answer: dict[str, Any], legs: list[tuple[int | None, int]]
) -> tuple[HandEscrow, dict[int | None, tuple[str, int]]]:
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


def _check_payouts(payouts: Mapping[int | None, int]) -> dict[int | None, int]:
    if not isinstance(payouts, Mapping):
        raise InvalidEntry("payouts map a user id (or None for the house) to chips", {"field": "payouts"})
    clean: dict[int | None, int] = {}
    for party, amount in payouts.items():
        if party is not None:
            check_int(party, "payouts key")
        clean[party] = non_negative(amount, f"payouts[{party}]")
    return clean


def _check_results(results: Iterable[dict[str, Any]]) -> dict[int, int]:
    """Each punter's net over the hand, from the results rows."""
    if not isinstance(results, list):
        raise InvalidEntry("results is a list of result rows", {"field": "results"})
    nets: dict[int, int] = defaultdict(int)
    for row in results:
        if not isinstance(row, dict):
            raise InvalidEntry("each result row is an object", {"field": "results"})
        nets[check_int(row.get("user_id"), "results[].user_id")] += check_int(row.get("net"), "results[].net")
    return dict(nets)


def _party_order(party: object) -> tuple[int, str]:
    return (0, "") if party is None else (1, f"{party:>20}" if isinstance(party, int) else str(party))


def _party_item(item: tuple[Any, Any]) -> tuple[int, str]:
    return _party_order(item[0])
