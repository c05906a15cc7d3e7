"""Models of the casino project itself: what the admin needs to hang permissions and pages on, and the
records of operations (verification failures, reconciliation runs) the dashboard and the metrics read.

``Player`` is a proxy of the user model (no table of its own): the admin's "Players" section (balances,
postings, cashier), with the ``use_cashier`` permission the "operator" group holds. It has only the ``view``
default permission: players register through the API, and their accounts are never edited in the admin.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import models
from django.utils import timezone


class Player(User):
    class Meta:
        proxy = True
        verbose_name = "player"
        verbose_name_plural = "players"
        default_permissions = ("view",)
        permissions = [("use_cashier", "Can deposit and withdraw chips at the cage")]


class VerificationFailure(models.Model):
    """A verification that failed (a hand, or a table's hash chain): kept so the dashboard and the metrics can
    show the last ones, whoever ran the check (the admin's Verify button, ``verify_hand``, ``verify_hands``, the
    API's ``/hands/{id}/verify``). Written by ``backoffice.monitoring.record_verification_failure``; never edited."""

    at = models.DateTimeField(default=timezone.now)
    table_id = models.BigIntegerField()
    hand_id = models.BigIntegerField(null=True, blank=True)  # None: the table's hash chain between hands
    hand_number = models.PositiveIntegerField(null=True, blank=True)
    source = models.CharField(max_length=20)  # admin | verify_hand | verify_hands | api
    checks = models.JSONField(default=dict)  # the failing checks only: {check: what differs}

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["-at"], name="casino_verifyfail_at_idx")]
        default_permissions = ("view",)

    def __str__(self) -> str:
        what = f"hand {self.hand_id}" if self.hand_id is not None else f"table {self.table_id} chain"
        return f"{what} failed {', '.join(self.checks)} at {self.at:%Y-%m-%d %H:%M}"


class ReconcileRun(models.Model):
    """One run of the ledger reconciliation (``manage.py reconcile`` or the beat task): its outcome, for the
    dashboard and the ``casino_ledger_reconcile_*`` metrics."""

    at = models.DateTimeField(default=timezone.now)
    ok = models.BooleanField()
    differences = models.PositiveIntegerField(default=0)
    seconds = models.FloatField(default=0)
    source = models.CharField(max_length=20)  # command | beat
    failed_checks = models.JSONField(default=list)  # names of the checks that found differences

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["-at"], name="casino_reconcile_at_idx")]
        default_permissions = ("view",)

    def __str__(self) -> str:
        return f"reconcile at {self.at:%Y-%m-%d %H:%M}: {'ok' if self.ok else f'{self.differences} differences'}"
