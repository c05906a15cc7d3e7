"""Deposits and withdrawals at the cage. ``house:cage`` is where chips come from and go back to: its balance is
minus the chips in players' hands (and on the tables)."""

from __future__ import annotations

from ledger.accounts import CAGE, AccountKey, UserRef, lock_accounts, user_id_of
from ledger.cashier_role import cashier_session
from ledger.errors import InsufficientFunds, InvalidEntry
from ledger.journal import Entry, find_repeat, fingerprint, write
from ledger.models import Transaction, TransactionKind
from ledger.validation import check_cause, positive


def deposit(*, user: UserRef, amount: int, reference: str, operator: UserRef, cause: str) -> Transaction:
    """Credit ``amount`` chips to the player's wallet from the cage (``house:cage`` goes negative by the chips
    in players' hands). ``reference`` is the cashier's reference (receipt, payment id)."""
    return _cage_entry(
        kind=TransactionKind.DEPOSIT,
        user=user,
        amount=amount,
        reference=reference,
        operator=operator,
        cause=cause,
    )


def withdraw(*, user: UserRef, amount: int, reference: str, operator: UserRef, cause: str) -> Transaction:
    """Pay ``amount`` chips out of the player's wallet back to the cage; :class:`InsufficientFunds` if the
    wallet holds less."""
    return _cage_entry(
        kind=TransactionKind.WITHDRAWAL,
        user=user,
        amount=amount,
        reference=reference,
        operator=operator,
        cause=cause,
    )


def _cage_entry(*, kind: str, user: UserRef, amount: int, reference: str, operator: UserRef, cause: str) -> Transaction:
    """The entry, written as the cashier's role (ledger/cashier_role.py)."""
    cause = check_cause(cause)
    amount = positive(amount, "amount")
    user_id, operator_id = user_id_of(user), user_id_of(operator)
    if not isinstance(reference, str):
        raise InvalidEntry("reference must be a string", {"field": "reference"})
    content = {"kind": kind, "user": user_id, "amount": amount, "reference": reference, "operator": operator_id}
    content_hash = fingerprint(content)
    with cashier_session() as using:
        if (repeat := find_repeat(cause, content_hash, using=using)) is not None:
            return repeat
        return _write_cage_entry(kind, user_id, operator_id, amount, reference, cause, content_hash, using)


def _write_cage_entry(
    kind: str, user_id: int, operator_id: int, amount: int, reference: str, cause: str, content_hash: str, using: str
) -> Transaction:
    wallet_key, cage_key = AccountKey.wallet(user_id), AccountKey.house(CAGE)
    accounts = lock_accounts([wallet_key, cage_key], using=using)
    wallet, cage = accounts[wallet_key], accounts[cage_key]
    if kind == TransactionKind.DEPOSIT:
        legs = [(cage.id, -amount), (wallet.id, amount)]
    else:
        if wallet.balance < amount:
            raise InsufficientFunds(
                f"{wallet.code} holds {wallet.balance} chips, cannot withdraw {amount}",
                {"account": wallet.code, "balance": wallet.balance, "amount": amount},
            )
        legs = [(wallet.id, -amount), (cage.id, amount)]
    entry = Entry(
        kind=kind,
        cause=cause,
        content_hash=content_hash,
        memo=f"{kind} {reference}".strip(),
        actor_id=operator_id,
        details={"user": user_id, "reference": reference},
    )
    return write(entry, legs, using=using)
