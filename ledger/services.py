"""The ledger's services: the only way chips move, and the reads the rest of the system needs.

Writes (``ledger.cashier``, ``ledger.hands``, ``ledger.corrections``): each is keyword-only, typed, atomic,
and idempotent by ``cause``: a repeat with the same content returns the first transaction and posts nothing;
the same cause with other content raises :class:`~ledger.errors.IdempotencyConflict`. The content compared is
everything but the memo. A refusal leaves no trace and a caller's transaction usable.

The cashier's and corrections are ``@transaction.atomic`` (a savepoint inside a caller's transaction) and
cost a handful of statements: look the cause up; lock the balance rows of the accounts involved in ascending
id order (``SELECT ... FOR UPDATE``; missing accounts are created first); insert the transaction; insert the
postings (the database updates the balance rows and sets ``balance_after``). A hand entry (every game
command's) is one call of the database function ``ledger_hand_entry``, which does the same steps plus reading
the hand under the escrow's lock, and writes nothing when it refuses, so it needs no savepoint. Refusals are
decided on the locked balances; the database's CHECKs and triggers are the backstop. Every returned
transaction carries ``posted``: its postings in order, with ``balance_after``.

Reads (``ledger.selectors``): constant-time balances, one-query wallet balances, account histories.
"""

from __future__ import annotations

from ledger.accounts import escrow_for, house_account, wallet_for
from ledger.cashier import deposit, withdraw
from ledger.corrections import post_correction
from ledger.hands import post_settlement, reserve_stake
from ledger.selectors import (
    account_postings,
    balance,
    hand_ledger,
    house_bankroll,
    ledger_row,
    wallet_balance,
    wallet_balances,
)

__all__ = [
    "account_postings",
    "balance",
    "deposit",
    "escrow_for",
    "hand_ledger",
    "house_account",
    "house_bankroll",
    "ledger_row",
    "post_correction",
    "post_settlement",
    "reserve_stake",
    "wallet_balance",
    "wallet_balances",
    "wallet_for",
    "withdraw",
]
