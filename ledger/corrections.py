"""Operator corrections: compensating entries, never edits."""

from __future__ import annotations

from collections.abc import Mapping

from django.db import transaction

from ledger.accounts import UserRef, check_int, key_for_code, lock_accounts, user_id_of
from ledger.errors import InsufficientFunds, InvalidEntry
from ledger.journal import Entry, find_repeat, fingerprint, write
from ledger.models import NON_NEGATIVE_KINDS, Transaction, TransactionKind
from ledger.validation import check_cause


@transaction.atomic
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
    if (repeat := find_repeat(cause, content_hash)) is not None:
        return repeat

    keyed = {key_for_code(code): (code, amount) for code, amount in entries.items()}
    if len(keyed) != len(entries):
        raise InvalidEntry("two entries name the same account", {"field": "entries"})
    accounts = lock_accounts(keyed)
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
    return write(entry, sorted(legs))
