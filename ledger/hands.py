"""Stakes and settlements: a hand's chips go into its table's escrow when stakes are placed and all come out
when it is settled.

Every hand entry locks the table's escrow balance row, so the hand's state (read after taking the lock) cannot
change underneath it: a stake and a settlement of the same hand are serialised.

An entry is one call of the database function ``ledger_hand_entry`` (``ledger.hand_entry``), which checks and
writes in one round trip and writes nothing when it refuses. The checks here only word the refusal the database
decided.

The house banks each table from that table's own bankroll account (``house:bankroll:table:<id>``, a
sub-account of ``house:bankroll``): house-banked tables never wait on one shared row.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from ledger.accounts import UserRef, check_int, user_id_of
from ledger.errors import (
    BankCannotCover,
    HandAlreadySettled,
    InsufficientFunds,
    InvalidEntry,
    LedgerError,
    LedgerInvariantError,
    SettlementMismatch,
)
from ledger.hand_entry import Balances, HandEscrow, post_hand_entry
from ledger.journal import Entry, fingerprint
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
    parties = {"punter": punter_id, "punter_amount": punter_amount, "banker": banker_id, "banker_amount": banker_amount}
    content = {"kind": TransactionKind.STAKE_RESERVE, "table_id": table_id, "hand_id": hand_id, **parties}
    entry = Entry(
        kind=TransactionKind.STAKE_RESERVE,
        cause=cause,
        content_hash=fingerprint(content),
        memo=memo,
        hand_id=hand_id,
        table_id=table_id,
        actor_id=punter_id,
        details=dict(parties),
    )
    legs: list[tuple[int | None, int]] = []
    legs += [(punter_id, -punter_amount)] if punter_amount else []
    legs += [(banker_id, -banker_amount)] if banker_amount else []
    posted = post_hand_entry(entry, legs, banker=banker_id)
    if isinstance(posted, Transaction):
        return posted
    hand, balances = posted
    raise _stake_refusal(hand, balances, cause, content)


def _stake_refusal(hand: HandEscrow, balances: Balances, cause: str, content: dict[str, Any]) -> LedgerError:
    """Why the database refused the stake reserve ``cause`` (``content`` is what it reserves): the hand is
    settled, it is banked by someone else, or a party is short; else an invariant error (a refusal for no
    reason this side knows)."""
    table_id, hand_id, banker_id = content["table_id"], content["hand_id"], content["banker"]
    if hand.settled:
        return HandAlreadySettled(f"hand {hand_id} of table {table_id} is already settled", content)
    if hand.bankers and hand.bankers != {banker_id}:
        return LedgerInvariantError(
            f"hand {hand_id} is banked by {sorted(hand.bankers, key=_party_order)}, not {banker_id}", content
        )
    for party, amount, error in (
        (content["punter"], content["punter_amount"], InsufficientFunds),
        (banker_id, content["banker_amount"], BankCannotCover),
    ):
        if party is not None and amount and balances[party][1] < amount:
            code, balance = balances[party]
            return error(
                f"{code} holds {balance} chips, the stake needs {amount}"
                if error is InsufficientFunds
                else f"the banker {code} holds {balance} chips, covering the stake needs {amount}",
                {"account": code, "balance": balance, "amount": amount},
            )
    return LedgerInvariantError(f"the ledger refused the stake reserve {cause}", content)


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
    paid = sorted(clean_payouts.items(), key=_party_item)
    content = {
        "kind": TransactionKind.HAND_SETTLEMENT,
        "table_id": table_id,
        "hand_id": hand_id,
        "payouts": [[party, amount] for party, amount in paid],
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
            "banker": None,  # set by ledger_hand_entry from the hand's reserves
            "payouts": [{"user_id": p, "amount": a} for p, a in paid],
            "results": results,
        },
    )
    posted = post_hand_entry(entry, [(party, amount) for party, amount in paid if amount], nets=nets)
    if isinstance(posted, Transaction):
        return posted
    hand, _balances = posted
    raise _settlement_refusal(hand, cause, clean_payouts, nets, {"table_id": table_id, "hand_id": hand_id})


def _settlement_refusal(
    hand: HandEscrow, cause: str, payouts: dict[int | None, int], nets: dict[int, int], where: dict[str, int]
) -> LedgerError:
    """Why the database refused the settlement ``cause``: the hand is settled or has no reserves, the payouts do not add
    up to what it holds, or a party's payout is not its reserve plus its net; else an invariant error."""
    table_id, hand_id = where["table_id"], where["hand_id"]
    if hand.settled:
        return HandAlreadySettled(f"hand {hand_id} of table {table_id} is already settled", where)
    if not hand.reserves:
        return SettlementMismatch(f"hand {hand_id} of table {table_id} has no stake reserves", where)
    paid = sum(payouts.values())
    if paid != hand.held:
        return SettlementMismatch(
            f"the payouts add up to {paid} but hand {hand_id} holds {hand.held} in escrow",
            {**where, "held": hand.held, "paid": paid},
        )
    if len(hand.bankers) != 1:
        return LedgerInvariantError(f"hand {hand_id} has reserves for several bankers: {hand.bankers}", where)
    (banker,) = hand.bankers
    expected: dict[int | str | None, int] = {party: -moved for party, moved in hand.moved.items()}
    for party, net in [*nets.items(), (banker, -sum(nets.values()))]:
        expected[party] = expected.get(party, 0) + net
    paid_to: dict[int | str | None, int] = {party: amount for party, amount in payouts.items()}
    differences = [
        {"party": party, "expected": expected.get(party, 0), "payout": paid_to.get(party, 0)}
        for party in sorted({*expected, *paid_to}, key=_party_order)
        if expected.get(party, 0) != paid_to.get(party, 0)
    ]
    if differences:
        return SettlementMismatch(
            f"the payouts of hand {hand_id} do not match its results (reserve + net per party)",
            {**where, "differences": differences},
        )
    return LedgerInvariantError(f"the ledger refused the settlement {cause}", where)


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
