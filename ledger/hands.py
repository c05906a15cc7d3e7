"""Stakes and settlements: a hand's chips go into its table's escrow when stakes are placed and all come out
when it is settled.

Every hand entry locks the table's escrow balance row, so the hand's state (read after taking the lock) cannot
change underneath it: a stake and a settlement of the same hand are serialised.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db import connection, transaction

from ledger.accounts import BANKROLL, AccountKey, UserRef, check_int, lock_accounts, user_id_of
from ledger.errors import (
    BankCannotCover,
    HandAlreadySettled,
    InsufficientFunds,
    InvalidEntry,
    LedgerInvariantError,
    SettlementMismatch,
)
from ledger.journal import Entry, find_repeat, fingerprint, write
from ledger.models import Transaction, TransactionKind
from ledger.validation import check_cause, non_negative


@transaction.atomic
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
    content_hash = fingerprint(content)
    if (repeat := find_repeat(cause, content_hash)) is not None:
        return repeat

    punter_key = AccountKey.wallet(punter_id)
    banker_key = AccountKey.house(BANKROLL) if banker_id is None else AccountKey.wallet(banker_id)
    escrow_key = AccountKey.escrow(table_id)
    wanted = [escrow_key]
    wanted += [punter_key] if punter_amount else []
    wanted += [banker_key] if banker_amount else []
    accounts = lock_accounts(wanted)

    hand = _hand_state(table_id, hand_id)  # read under the escrow lock: every hand entry takes it
    if hand.settled:
        raise HandAlreadySettled(f"hand {hand_id} of table {table_id} is already settled", content)
    if hand.bankers and hand.bankers != {banker_id}:
        raise LedgerInvariantError(
            f"hand {hand_id} is banked by {sorted(hand.bankers, key=_party_order)}, not {banker_id}", content
        )
    legs: list[tuple[int, int]] = []
    if punter_amount:
        wallet = accounts[punter_key]
        if wallet.balance < punter_amount:
            raise InsufficientFunds(
                f"{wallet.code} holds {wallet.balance} chips, the stake needs {punter_amount}",
                {"account": wallet.code, "balance": wallet.balance, "amount": punter_amount},
            )
        legs.append((wallet.id, -punter_amount))
    if banker_amount:
        bank = accounts[banker_key]
        if banker_id is not None and bank.balance < banker_amount:
            raise BankCannotCover(
                f"the banker {bank.code} holds {bank.balance} chips, covering the stake needs {banker_amount}",
                {"account": bank.code, "balance": bank.balance, "amount": banker_amount},
            )
        legs.append((bank.id, -banker_amount))
    legs.append((accounts[escrow_key].id, punter_amount + banker_amount))
    entry = Entry(
        kind=TransactionKind.STAKE_RESERVE,
        cause=cause,
        content_hash=content_hash,
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
    return write(entry, legs)


@transaction.atomic
def settle_hand(
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
    content_hash = fingerprint(content)
    if (repeat := find_repeat(cause, content_hash)) is not None:
        return repeat

    escrow_key = AccountKey.escrow(table_id)
    payee_keys = {party: _party_key(party) for party, amount in clean_payouts.items() if amount}
    accounts = lock_accounts([escrow_key, *payee_keys.values()])

    hand = _hand_state(table_id, hand_id)
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

    legs = [(accounts[escrow_key].id, -hand.held)] if hand.held else []
    legs += [(accounts[key].id, clean_payouts[party]) for party, key in sorted(payee_keys.items(), key=_party_item)]
    entry = Entry(
        kind=TransactionKind.HAND_SETTLEMENT,
        cause=cause,
        content_hash=content_hash,
        memo=memo,
        hand_id=hand_id,
        table_id=table_id,
        details={
            "banker": banker,
            "payouts": [{"user_id": p, "amount": a} for p, a in sorted(clean_payouts.items(), key=_party_item)],
            "results": results,
        },
    )
    return write(entry, legs)


@dataclass
class HandState:
    """What the ledger holds for one hand: read under the table escrow's lock."""

    settled: bool = False
    reserves: int = 0
    bankers: set[int | None] = field(default_factory=set)
    held: int = 0  # the hand's share of its table's escrow
    # Net movement per party: a user id (wallet), None (house bankroll), or an account code (anything else).
    moved: dict[int | str | None, int] = field(default_factory=lambda: defaultdict(int))


def _hand_state(table_id: int, hand_id: int) -> HandState:
    state = HandState()
    reserve_ids: set[int] = set()
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT t.id, t.kind, (t.details ->> 'banker')::bigint, a.kind, a.code, a.user_id, a.table_id, p.amount
              FROM ledger_transaction t
              JOIN ledger_posting p ON p.transaction_id = t.id
              JOIN ledger_account a ON a.id = p.account_id
             WHERE t.table_id = %s AND t.hand_id = %s
            """,
            [table_id, hand_id],
        )
        for tx_id, tx_kind, banker, account_kind, code, user_id, escrow_table, amount in cursor.fetchall():
            if tx_kind == TransactionKind.HAND_SETTLEMENT:
                state.settled = True
            elif tx_kind == TransactionKind.STAKE_RESERVE:
                reserve_ids.add(tx_id)
                state.bankers.add(banker)
            if account_kind == "escrow" and escrow_table == table_id:
                state.held += amount
            elif account_kind == "wallet":
                state.moved[user_id] += amount
            elif code == BANKROLL:
                state.moved[None] += amount
            else:
                state.moved[code] += amount
    state.reserves = len(reserve_ids)
    return state


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


def _party_key(party: int | None) -> AccountKey:
    return AccountKey.house(BANKROLL) if party is None else AccountKey.wallet(party)


def _party_order(party: object) -> tuple[int, str]:
    return (0, "") if party is None else (1, f"{party:>20}" if isinstance(party, int) else str(party))


def _party_item(item: tuple[Any, Any]) -> tuple[int, str]:
    return _party_order(item[0])
