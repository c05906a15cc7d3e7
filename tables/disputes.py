"""Disputes of a hand: a participant opens one, an operator resolves it, with a compensating ledger entry when
chips are owed (docs/admin.md "Disputes"). Nothing is edited: the resolution and its entry are new rows.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from gamemath.enums import DisputeStatus
from ledger import services as ledger
from tables.errors import DisputeAlreadyResolved
from tables.hand_reads import hand_access
from tables.models import Dispute, Hand


@transaction.atomic
def hand_dispute_open(*, hand_id: int, user: AbstractBaseUser, reason: str) -> Dispute:
    """A participant disputes a hand: a Dispute row for the operators, and the hand marked ``disputed``.
    Raises ``not_found`` and, for anyone but a participant, ``forbidden``."""
    hand, _ = hand_access(hand_id=hand_id, user=user, participants_only=True)
    dispute = Dispute.objects.create(hand_id=hand.pk, user=user, reason=reason)
    Hand.objects.filter(pk=hand.pk).update(disputed=True)
    return dispute


def dispute_cause(dispute_id: int) -> str:
    """The ledger cause of a dispute's compensating entry: at most one per dispute."""
    return f"dispute:{dispute_id}"


@transaction.atomic
def dispute_resolve(
    *,
    dispute_id: int,
    operator: AbstractBaseUser,
    resolution: str,
    compensation: Mapping[str, int] | None = None,
) -> Dispute:
    """Resolve an open dispute with the operator's note and, when chips are owed, a compensating ledger entry
    (``compensation``: account code -> signed amount, summing to zero) made by ``ledger.post_correction`` with
    the operator and the dispute. Nothing is edited: the entry is new, and the dispute records it.

    Raises :class:`DisputeAlreadyResolved`, and the ledger's errors (``InsufficientFunds``, ``InvalidEntry``,
    ``UnknownAccount``), in which case nothing is written.
    """
    dispute = Dispute.objects.select_for_update().get(pk=dispute_id)
    if dispute.status != DisputeStatus.OPEN:
        raise DisputeAlreadyResolved(f"dispute {dispute_id} was already resolved")
    note = resolution.strip()
    entry = None
    if compensation:
        entry = ledger.post_correction(
            cause=dispute_cause(dispute.pk),
            operator=operator,
            entries=dict(compensation),
            memo=f"dispute {dispute.pk} on hand {dispute.hand_id}: {note}",
            dispute_id=dispute.pk,
        )
    dispute.status = DisputeStatus.RESOLVED
    dispute.resolution = note
    dispute.resolved_by = operator  # type: ignore[assignment]
    dispute.resolved_at = timezone.now()
    dispute.correction_transaction_id = entry.pk if entry is not None else None
    dispute.save(update_fields=["status", "resolution", "resolved_by", "resolved_at", "correction_transaction_id"])
    return dispute
