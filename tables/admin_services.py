"""Writes the admin makes that are not table commands: resolving a dispute (HackSoft style, one transaction).

(``dispute_resolve`` would sit in ``tables/services.py`` with ``hand_dispute_open``; it lives here because the
admin owns it.)
"""

from __future__ import annotations

from collections.abc import Mapping

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from ledger import services as ledger
from tables.models import Dispute


class DisputeAlreadyResolved(Exception):
    """The dispute was resolved before (perhaps by another operator a moment ago)."""


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
    if dispute.status != "open":
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
    dispute.status = "resolved"
    dispute.resolution = note
    dispute.resolved_by = operator  # type: ignore[assignment]
    dispute.resolved_at = timezone.now()
    dispute.correction_transaction_id = entry.pk if entry is not None else None
    dispute.save(update_fields=["status", "resolution", "resolved_by", "resolved_at", "correction_transaction_id"])
    return dispute
