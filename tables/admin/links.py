"""The admin pages the game's admin pages link to: a hand's page, a player's page."""

from __future__ import annotations

from django.urls import reverse


def hand_url(hand_id: int) -> str:
    """The admin page of hand ``hand_id`` (its replay, timeline, ledger and verification)."""
    return reverse("admin:tables_hand_change", args=[hand_id])


def player_url(user_id: int | str) -> str:
    """The admin page of the player ``user_id`` (balance, cashier)."""
    return reverse("admin:casino_player_change", args=[user_id])
