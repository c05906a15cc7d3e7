"""Which seats are idle (API.md v1.2 seats: a seat that has taken part in no hand for a while is released by the
server, with an event that says why).

A seat is idle when its player has taken part in no hand (staked, was dealt in or held the bank: the
``HandParticipant`` read model) since he last did, or since he sat down, for ``SEAT_IDLE_MINUTES`` (10) and, if the
table dealt hands meanwhile, for at least ``SEAT_IDLE_HANDS`` (3) of them: whichever comes later. At a table that
deals no hand at all (a player alone, or everybody sitting out), the minutes alone count: six seats sitting out
for ever would otherwise hold a table nobody else can join (the attack of issue 27). A seat in the hand in play
is never idle. The release itself is the core's ``ReleaseIdleSeat`` command (``SeatLeft`` with reason ``idle``),
run by ``tables.services.table_release_idle_seat`` and swept by beat (``tables.release_idle_seats``).

Every read is bounded: the player's latest hand at the table, the events since then (one index range of the
table's stream), and the hands since then.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from tables.models import Event, Hand, HandParticipant, TableSeat


@dataclass(frozen=True, slots=True)
class IdleSeat:
    table_id: int
    user_id: int
    since: datetime  # when the player last took part in a hand there, or sat down
    hands: int  # hands dealt at the table since then without him


def idleness(table_id: int, user_id: int, now: datetime | None = None) -> IdleSeat | None:
    """The seat's idleness if it is idle by the settings, else None (also when the player has no seat there)."""
    now = now or timezone.now()
    last_hand = (
        HandParticipant.objects.filter(user_id=user_id, hand__table_id=table_id)
        .select_related("hand")
        .order_by("-hand__number")
        .first()
    )
    if last_hand is not None and last_hand.hand.status == "in_play":
        return None
    after_version = (last_hand.hand.closed_version or last_hand.hand.opened_version) if last_hand else 0
    since: datetime | None = None
    if last_hand is not None:
        since = last_hand.hand.settled_at or last_hand.hand.opened_at
    sat = (
        Event.objects.filter(
            table_id=table_id, type="SeatTaken", version__gt=after_version, data__player_id=str(user_id)
        )
        .order_by("-version")
        .values_list("version", "recorded_at")
        .first()
    )
    if sat is not None:
        after_version, since = sat
    if since is None:
        return None
    hands = Hand.objects.filter(table_id=table_id, opened_version__gt=after_version).count()
    if now - since < timedelta(minutes=settings.SEAT_IDLE_MINUTES):
        return None
    if 0 < hands < settings.SEAT_IDLE_HANDS:
        return None
    return IdleSeat(table_id=table_id, user_id=user_id, since=since, hands=hands)


def idle_seats(limit: int = 500) -> list[IdleSeat]:
    """The idle seats of every table (the oldest seats first, at most ``limit``)."""
    cutoff = timezone.now() - timedelta(minutes=settings.SEAT_IDLE_MINUTES)
    found: list[IdleSeat] = []
    for table_id, user_id in TableSeat.objects.order_by("id").values_list("table_id", "user_id"):
        seat = idleness(table_id, user_id)
        if seat is not None and seat.since <= cutoff:
            found.append(seat)
            if len(found) >= limit:
                break
    return found
