"""Seats that responsible gaming takes back (docs/responsible-gaming.md): a player who excludes himself, or whose
session limit is used up, leaves every table he sits at (at once between hands, else after the hand in play).

Responsible gaming decides who (``responsible.services.sweep``, ``exclusion_start``); the game moves the seats,
through the same ``table_leave`` a player's own leave goes through.
"""

from __future__ import annotations

import logging

from django.contrib.auth import get_user_model

from responsible import services as responsible
from rules import DomainError
from tables.errors import TableNotFound
from tables.models import TableSeat
from tables.services import table_leave

log = logging.getLogger(__name__)


def release_seats(*, user_id: int) -> int:
    """Leave every table the player sits at (at once between hands, else after the hand in play); returns how
    many seats were released."""
    user = get_user_model()._default_manager.get(pk=user_id)
    released = 0
    for table_id in TableSeat.objects.filter(user_id=user_id).values_list("table_id", flat=True):
        try:
            table_leave(table_id=table_id, user=user)
            released += 1
        except (DomainError, TableNotFound):
            log.info("responsible gaming: seat of user %s at table %s not released", user_id, table_id)
    return released


def sweep(*, now: int | None = None) -> dict[str, int]:
    """Beat's responsible-gaming duties: lapse expired raise requests, end finished exclusions, and release the
    seats of players who are excluded or whose session limit is used up. Returns counts (``lapsed``, ``ended``,
    ``released``)."""
    seated = set(TableSeat.objects.values_list("user_id", flat=True).distinct())
    counts, release = responsible.sweep(seated=seated, now=now)
    return {**counts, "released": sum(release_seats(user_id=user_id) for user_id in release)}
