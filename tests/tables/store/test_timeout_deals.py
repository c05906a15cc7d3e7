"""A timeout deals cards like any other command (found by the soak after issues 11 and 13 met on main).

The timeout service rebuilt the command's context with the database's clock and dropped the rest of it: the
unsealed seed of the hand in play and the next hand's sealed seed. A timeout that had to deal (a punter stood by
timeout, the bank's turn, the next hand's peek card) then found no seed and abandoned the hand as
``seed_unavailable``. Every preset and bank here plays only by timeouts, and every hand must settle and verify.
"""

from __future__ import annotations

import pytest

from tables import services
from tables.models import Hand
from tables.store import load_stream
from tables.verify import verification_ok, verify_hand
from tests.support.play import make_players, make_table, state_of

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("preset", ["classic", "italian", "spanish", "hungarian"])
@pytest.mark.parametrize("bank", ["house", "player"])
def test_hands_played_by_timeouts_deal_settle_and_verify(preset: str, bank: str) -> None:
    table = make_table(preset, bank=bank, turn_timeout_s=1, betting_timeout_s=1)
    for user in make_players(3, prefix="idle"):
        services.table_sit(table_id=table.pk, user=user)
    for _ in range(60):
        state = state_of(table.pk)
        if state.awaiting is None or Hand.objects.filter(table=table, settled_at__isnull=False).count() >= 2:
            break
        if state.awaiting.seat is not None:  # a player's wait: act for him, so hands are dealt and played on
            seat = state.seat_at(state.awaiting.seat)
            if seat is not None and state.awaiting.kind in ("bet", "bets"):
                player = next(u for u in seat_users(table) if str(u.pk) == seat.player_id)
                services.table_act(table_id=table.pk, user=player, action="bet", args={"amount": table.min_bet})
                continue
        services.table_timeout(table_id=table.pk, version=state.version, now_ms=state.awaiting.deadline_ms)
    abandoned = [e for e in load_stream(table.pk) if e.type == "HandAbandoned"]
    assert not [e for e in abandoned if e.data.get("reason") == "seed_unavailable"], abandoned
    dealt = [e for e in load_stream(table.pk) if e.type == "CardDealt" and e.metadata.get("reason") == "timeout"]
    settled = list(Hand.objects.filter(table=table, settled_at__isnull=False))
    assert settled, "no hand settled"
    for hand in settled:
        report = verify_hand(hand, record=False)
        assert verification_ok(report), (hand.number, report)  # (`deck` is a note for a hand that dealt no card)
    assert dealt or preset == "classic", "no timeout dealt a card"


def seat_users(table):  # type: ignore[no-untyped-def]
    from django.contrib.auth import get_user_model

    ids = [int(s.player_id) for s in state_of(table.pk).seats]
    return list(get_user_model().objects.filter(pk__in=ids))
