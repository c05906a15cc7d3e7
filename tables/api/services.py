"""Writes of the game API that have no table command behind them.

(``hand_dispute_open`` belongs with the other services in ``tables/services.py``; it lives here until that
module takes it.)
"""

from __future__ import annotations

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction

from tables.models import Dispute, Hand
from tables.selectors import hand_access


@transaction.atomic
def hand_dispute_open(*, hand_id: int, user: AbstractBaseUser, reason: str) -> Dispute:
    """A participant disputes a hand: a Dispute row for the operators, and the hand marked ``disputed``.
    Raises ``not_found`` and, for anyone but a participant, ``forbidden``."""
    hand, _ = hand_access(hand_id=hand_id, user=user, participants_only=True)
    dispute = Dispute.objects.create(hand_id=hand.pk, user=user, reason=reason)
    Hand.objects.filter(pk=hand.pk).update(disputed=True)
    return dispute
