"""The double-entry chip ledger: accounts, their balance rows, transactions (journal entries) and postings.

The rules that matter are enforced by PostgreSQL, not by this module (see migration 0002 and
docs/ledger.md): postings of a transaction sum to zero (deferred constraint trigger), amounts are non-zero,
transactions, postings and accounts are append-only, a cause is posted at most once, a hand is settled at
most once, balance rows change only through postings (so a balance always equals the sum of its account's
postings and ``balance_after`` is exact), and wallet and escrow balances never go negative.

Write through :mod:`ledger.services`; read through :mod:`ledger.selectors`.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Now


class AccountKind(models.TextChoices):
    WALLET = "wallet", "player wallet"
    ESCROW = "escrow", "table escrow"
    BANKROLL = "bankroll", "house bankroll"
    CAGE = "cage", "cage"
    FEES = "fees", "house fees"


# Kinds whose balance may never go below zero (CHECK on the balance row).
NON_NEGATIVE_KINDS = (AccountKind.WALLET, AccountKind.ESCROW)
HOUSE_KINDS = (AccountKind.BANKROLL, AccountKind.CAGE, AccountKind.FEES)


class TransactionKind(models.TextChoices):
    DEPOSIT = "deposit", "deposit at the cage"
    WITHDRAWAL = "withdrawal", "withdrawal at the cage"
    STAKE_RESERVE = "stake_reserve", "stake reserved into escrow"
    HAND_SETTLEMENT = "hand_settlement", "hand settled out of escrow"
    CORRECTION = "correction", "operator correction"
    BANKROLL_SWEEP = "bankroll_sweep", "table's house bankroll swept into house:bankroll"


class Account(models.Model):
    """A ledger account. ``code`` is the name API.md uses (``player:<username>``, ``escrow:table:<id>``,
    ``house:bankroll``, ``house:cage``, ``house:fees``). Accounts are never deleted."""

    code = models.CharField(max_length=200)
    kind = models.CharField(max_length=16, choices=AccountKind.choices)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="ledger_wallet",
    )
    # The game's table id; deliberately no foreign key: the ledger does not import the game.
    table_id = models.BigIntegerField(null=True, blank=True, unique=True)
    created_at = models.DateTimeField(db_default=Now())

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(kind__in=AccountKind.values), name="ledger_account_kind_valid"),
            models.CheckConstraint(
                condition=Q(kind=AccountKind.WALLET, user__isnull=False)
                | (~Q(kind=AccountKind.WALLET) & Q(user__isnull=True)),
                name="ledger_account_wallet_has_user",
            ),
            models.CheckConstraint(
                condition=Q(kind=AccountKind.ESCROW, table_id__isnull=False)
                | (~Q(kind=AccountKind.ESCROW) & Q(table_id__isnull=True)),
                name="ledger_account_escrow_has_table",
            ),
            # Constraints rather than unique=True: no extra LIKE index on an insert-heavy table.
            models.UniqueConstraint(fields=["code"], name="ledger_account_code_key"),
            models.UniqueConstraint(fields=["id", "kind"], name="ledger_account_id_kind_key"),
        ]

    def __str__(self) -> str:
        return self.code


class Balance(models.Model):
    """The cached balance of one account, read in constant time. Changed only by the posting trigger."""

    account = models.OneToOneField(Account, on_delete=models.PROTECT, primary_key=True, related_name="balance")
    # Copy of the account's kind (a composite foreign key keeps it equal) so a CHECK can refer to it.
    kind = models.CharField(max_length=16, choices=AccountKind.choices)
    balance = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=~Q(kind__in=NON_NEGATIVE_KINDS) | Q(balance__gte=0),
                name="ledger_balance_non_negative",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.account_id}: {self.balance}"


class Transaction(models.Model):
    """A journal entry. ``cause`` names what caused it (an event or a request) and is unique, so a cause is
    posted at most once; ``fingerprint`` is the hash of the content a repeat must match."""

    kind = models.CharField(max_length=32, choices=TransactionKind.choices)
    memo = models.TextField(blank=True, default="")
    cause = models.CharField(max_length=200)
    fingerprint = models.CharField(max_length=64)
    hand_id = models.BigIntegerField(null=True, blank=True)
    table_id = models.BigIntegerField(null=True, blank=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="ledger_transactions",
    )
    created_at = models.DateTimeField(db_default=Now())
    details = models.JSONField(default=dict, blank=True)

    # Not a column: the services set it on the transaction they return (its postings in order, with
    # ``balance_after``), so a caller needs no further query to learn the new balances.
    posted: list[Posting]

    class Meta:
        indexes = [models.Index(fields=["table_id", "hand_id"], name="ledger_tx_table_hand_idx")]
        constraints = [
            models.CheckConstraint(condition=Q(kind__in=TransactionKind.values), name="ledger_tx_kind_valid"),
            models.UniqueConstraint(fields=["cause"], name="ledger_tx_cause_key"),
            models.CheckConstraint(condition=~Q(cause=""), name="ledger_tx_cause_not_empty"),
            models.CheckConstraint(
                condition=~Q(kind__in=[TransactionKind.STAKE_RESERVE, TransactionKind.HAND_SETTLEMENT])
                | Q(table_id__isnull=False, hand_id__isnull=False),
                name="ledger_tx_hand_entries_name_hand",
            ),
            models.UniqueConstraint(
                fields=["table_id", "hand_id"],
                condition=Q(kind=TransactionKind.HAND_SETTLEMENT),
                name="ledger_tx_one_settlement_per_hand",
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.kind} {self.cause}"


class Posting(models.Model):
    """One leg of a transaction: a signed integer amount on one account, and the account's balance right
    after it (set by the database under the balance row's lock)."""

    transaction = models.ForeignKey(Transaction, on_delete=models.PROTECT, related_name="postings")
    # Indexed by (account, -id) below, which also serves lookups by account.
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="postings", db_index=False)
    amount = models.BigIntegerField()
    balance_after = models.BigIntegerField()

    class Meta:
        indexes = [models.Index(fields=["account", "-id"], name="ledger_posting_account_idx")]
        constraints = [models.CheckConstraint(condition=~Q(amount=0), name="ledger_posting_amount_non_zero")]

    def __str__(self) -> str:
        return f"{self.account_id} {self.amount:+d}"


class PendingCredit(models.Model):
    """A deposit above ``CASHIER_SECOND_OPERATOR_ABOVE`` chips that waits for a second operator (issue #43, four
    eyes): asked by one operator, approved (posted through the cashier) or rejected by another, in the admin.
    ``responsible.credits`` writes it; its lines in the audit log say who did what."""

    PENDING, APPROVED, REJECTED = "pending", "approved", "rejected"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    amount = models.PositiveBigIntegerField()
    reference = models.CharField(max_length=200)
    cause = models.CharField(max_length=200, unique=True)  # the request's: a repeat asks once
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    requested_at = models.DateTimeField(db_default=Now())
    status = models.CharField(max_length=10, default=PENDING)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    transaction_id = models.BigIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["-requested_at", "-id"]
        default_permissions = ("view",)
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=["pending", "approved", "rejected"]), name="casino_credit_status_valid"
            ),
            # four eyes in the database too: whoever decides is not who asked
            models.CheckConstraint(
                condition=models.Q(decided_by__isnull=True) | ~models.Q(decided_by=models.F("requested_by")),
                name="casino_credit_second_operator",
            ),
        ]

    def __str__(self) -> str:
        return f"credit #{self.pk}: {self.amount} chips ({self.status})"
