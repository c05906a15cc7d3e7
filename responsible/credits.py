"""Four eyes on operators' credits (issue #43): a deposit above ``CASHIER_SECOND_OPERATOR_ABOVE`` chips is not posted
by the operator who asks for it. It waits as a :class:`~ledger.models.PendingCredit` until a different operator
holding the cashier's permission approves it in the admin (``backoffice.admin``: then it is posted through the
cashier, within the player's deposit limits, with the approver as its operator) or rejects it. Asking, approving
and rejecting each write an audit line; the database refuses a decision by the one who asked
(``casino_credit_second_operator``).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.admin.models import ADDITION, CHANGE
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from kit import audit
from ledger import services as ledger
from ledger.models import PendingCredit, Transaction
from responsible import services as responsible

CASHIER_PERMISSION = "casino.use_cashier"


class CreditRefused(Exception):
    """An approval or a rejection that may not happen (the operator who asked, no cashier permission, decided)."""


def needs_second_operator(amount: int) -> bool:
    """Whether a deposit of ``amount`` waits for a second operator."""
    return amount > settings.CASHIER_SECOND_OPERATOR_ABOVE


def request_credit(
    *, user: AbstractBaseUser, amount: int, reference: str, operator: AbstractBaseUser, cause: str
) -> PendingCredit:
    """The credit asked for by ``operator``, waiting for a second one (the one already asked under ``cause``, if
    any), with its audit line."""
    with transaction.atomic():
        pending, created = PendingCredit.objects.get_or_create(
            cause=cause,
            defaults={"user": user, "amount": amount, "reference": reference, "requested_by": operator},
        )
        if created:
            audit.log_action(
                actor_id=operator.pk,
                obj=pending,
                action_flag=ADDITION,
                message=f"Credit of {amount} chips to player:{user.get_username()} asked, reference {reference!r}: "
                "waits for a second operator",
            )
    return pending


def _decide(pending_id: int, operator: AbstractBaseUser) -> PendingCredit:
    pending = PendingCredit.objects.select_for_update().get(pk=pending_id)
    if pending.status != PendingCredit.PENDING:
        raise CreditRefused(f"credit #{pending.pk} is already {pending.status}")
    if pending.requested_by_id == operator.pk:
        raise CreditRefused(f"credit #{pending.pk} was asked by you: a second operator decides it")
    if not operator.has_perm(CASHIER_PERMISSION):
        raise CreditRefused("only an operator with the cashier's permission decides a credit")
    return pending


def approve_credit(*, pending_id: int, approver: AbstractBaseUser) -> Transaction:
    """Post the credit as ``approver`` (not who asked for it) and record the decision; :class:`CreditRefused`, or
    the cashier's refusal (a deposit limit), writing nothing."""
    with transaction.atomic():
        pending = _decide(pending_id, approver)
        entry = responsible.deposit(
            user=pending.user,
            amount=pending.amount,
            reference=pending.reference,
            operator=approver,
            cause=f"credit:{pending.pk}",
        )
        pending.status, pending.decided_by, pending.decided_at = PendingCredit.APPROVED, approver, timezone.now()
        pending.transaction_id = entry.pk
        pending.save(update_fields=["status", "decided_by", "decided_at", "transaction_id"])
        audit.log_cashier_entry(
            actor_id=approver.pk,
            entry=entry,
            operation="deposit",
            username=pending.user.get_username(),
            amount=pending.amount,
            reference=pending.reference,
            balance=ledger.wallet_balance(pending.user),
            via=f"admin, credit #{pending.pk} asked by {pending.requested_by.get_username()}",
        )
    return entry


def reject_credit(*, pending_id: int, operator: AbstractBaseUser) -> None:
    """Reject the credit (by an operator other than who asked for it), with its audit line."""
    with transaction.atomic():
        pending = _decide(pending_id, operator)
        pending.status, pending.decided_by, pending.decided_at = PendingCredit.REJECTED, operator, timezone.now()
        pending.save(update_fields=["status", "decided_by", "decided_at"])
        audit.log_action(
            actor_id=operator.pk, obj=pending, action_flag=CHANGE, message=f"Credit #{pending.pk} rejected"
        )
