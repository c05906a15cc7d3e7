"""The ledger's services: the only way chips move, and the reads the rest of the system needs.

Writes (``ledger.cashier``, ``ledger.hands``, ``ledger.corrections``): each is keyword-only, typed,
``@transaction.atomic`` (inside a caller's transaction it is a savepoint, so a refusal leaves no trace and the
caller's work goes on), and idempotent by ``cause``: a repeat with the same content returns the first
transaction and posts nothing; the same cause with other content raises
:class:`~ledger.errors.IdempotencyConflict`. The content compared is everything but the memo.

Each write costs a handful of statements: look the cause up; lock the balance rows of the accounts involved in
ascending id order (``SELECT ... FOR UPDATE``; missing accounts are created first); for hand entries, read the
hand's postings; insert the transaction; insert the postings (the database updates the balance rows and sets
``balance_after``). Refusals are decided in Python from the locked balances; the database's CHECKs and
triggers are the backstop. Every returned transaction carries ``posted``: its postings in order, with
``balance_after``.

Reads (``ledger.selectors``): constant-time balances, one-query wallet balances, account histories.
"""

from __future__ import annotations

from ledger.accounts import escrow_for, house_account, wallet_for
from ledger.cashier import deposit, withdraw
from ledger.corrections import post_correction
from ledger.hands import reserve_stake, settle_hand
from ledger.selectors import account_postings, balance, hand_ledger, ledger_row, wallet_balance, wallet_balances

__all__ = [
    "account_postings",
    "balance",
    "deposit",
    "escrow_for",
    "hand_ledger",
    "house_account",
    "ledger_row",
    "post_correction",
    "reserve_stake",
    "settle_hand",
    "wallet_balance",
    "wallet_balances",
    "wallet_for",
    "withdraw",
]
