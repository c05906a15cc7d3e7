"""Reads for the player's own pages (``/me/ledger``, ``/me/hands``)."""

from __future__ import annotations

from django.contrib.auth.base_user import AbstractBaseUser
from django.db.models import QuerySet

from ledger.models import Account, AccountKind, Posting
from ledger.selectors import account_postings
from tables.models import HandParticipant


def own_postings(user: AbstractBaseUser) -> QuerySet[Posting]:
    """The postings of the player's wallet, newest first (none before the first deposit)."""
    wallet = Account.objects.filter(user_id=user.pk, kind=AccountKind.WALLET).first()
    if wallet is None:
        return Posting.objects.none()
    return account_postings(wallet)


def own_hands(user: AbstractBaseUser) -> QuerySet[HandParticipant]:
    """The hands the player took part in, newest first, with the hand."""
    return HandParticipant.objects.filter(user_id=user.pk).select_related("hand").order_by("-hand_id")
