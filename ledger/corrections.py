"""Operator corrections: compensating entries, never edits."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ledger.accounts import UserRef, check_int, key_for_code, lock_accounts, user_id_of
from ledger.cashier_role import cashier_session
from ledger.errors import InsufficientFunds, InvalidEntry
from ledger.journal import Entry, find_repeat, fingerprint, write
from ledger.models import NON_NEGATIVE_KINDS, Transaction, TransactionKind
from ledger.validation import check_cause


def post_correction(
    *, cause: str, operator: UserRef, entries: Mapping[str, int], memo: str, dispute_id: int | None = None
) -> Transaction:
    """A compensating entry by an operator: ``entries`` maps account codes to signed amounts that sum to zero.
    Nothing is ever edited; a wrong posting is undone by posting its opposite. :class:`InsufficientFunds` if
    a wallet (or an escrow) would go negative."""
    cause = check_cause(cause)
    operator_id = user_id_of(operator)
    if not isinstance(memo, str) or not memo.strip():
        raise InvalidEntry("a correction needs a memo saying why", {"field": "memo"})
    if dispute_id is not None:
        dispute_id = check_int(dispute_id, "dispute_id")
    if not isinstance(entries, Mapping) or len(entries) < 2:
        raise InvalidEntry("a correction moves chips between at least two accounts", {"field": "entries"})
    for code, amount in entries.items():
        if check_int(amount, f"entries[{code}]") == 0:
            raise InvalidEntry(f"the amount for {code} is 0", {"field": "entries"})
    if sum(entries.values()) != 0:
        raise InvalidEntry(f"the entries sum to {sum(entries.values())}, not 0", {"field": "entries"})
    content = {
        "kind": TransactionKind.CORRECTION,
        "operator": operator_id,
        "entries": sorted([code, amount] for code, amount in entries.items()),
        "dispute_id": dispute_id,
    }
    content_hash = fingerprint(content)
    keyed = {key_for_code(code): (code, amount) for code, amount in entries.items()}
    if len(keyed) != len(entries):
        raise InvalidEntry("two entries name the same account", {"field": "entries"})
    with cashier_session() as using:  # as the cashier's role (ledger/cashier_role.py)
        if (repeat := find_repeat(cause, content_hash, using=using)) is not None:
            return repeat
        return _write_correction(cause, operator_id, keyed, entries, memo, dispute_id, content_hash, using)


def _write_correction(
    cause: str,
    operator_id: int,
    keyed: dict[Any, tuple[str, int]],
    entries: Mapping[str, int],
    memo: str,
    dispute_id: int | None,
    content_hash: str,
    using: str,
) -> Transaction:
    accounts = lock_accounts(keyed, using=using)
    legs = []
    for key, (code, amount) in keyed.items():
        account = accounts[key]
        if account.kind in NON_NEGATIVE_KINDS and account.balance + amount < 0:
            raise InsufficientFunds(
                f"{code} holds {account.balance} chips, the correction takes {-amount}",
                {"account": code, "balance": account.balance, "amount": -amount},
            )
        legs.append((account.id, amount))
    entry = Entry(
        kind=TransactionKind.CORRECTION,
        cause=cause,
        content_hash=content_hash,
        memo=memo,
        actor_id=operator_id,
        details={"entries": dict(entries), "dispute_id": dispute_id},
    )
    return write(entry, sorted(legs), using=using)
