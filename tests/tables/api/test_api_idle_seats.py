"""Idle seats are released by the server with an event that says why (issue 27; API.md v1.2 "Actions", seats):
a seat that took part in no hand for ``SEAT_IDLE_HANDS`` hands and ``SEAT_IDLE_MINUTES`` minutes, whichever comes
later (at a table that deals no hand, the minutes alone). The attack: accounts that sit out filled a table and
nothing unseated them."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from tables import services
from tables.idle_seats import idleness
from tables.models import Event, Hand, TableSeat
from tables.verify import verification_ok, verify_hand
from tests.support.game_helpers import create_table, ok

pytestmark = pytest.mark.django_db


def _sat_version(table_id: int, user: Any) -> int:
    return int(
        Event.objects.filter(table_id=table_id, type="SeatTaken", data__player_id=str(user.pk))
        .order_by("-version")
        .values_list("version", flat=True)[0]
    )


def _hands_since(table_id: int, version: int) -> int:
    return Hand.objects.filter(table_id=table_id, opened_version__gt=version).count()


def _play_until(client: Any, table_id: int, done: Any) -> None:
    """The seated player bets the minimum and stands, hand after hand, until ``done()``."""
    for _ in range(200):
        if done():
            return
        view = ok(client.get(f"/api/v1/tables/{table_id}"))
        legal = view["you"]["legal_actions"]
        if "bet" in legal:
            ok(
                client.post(
                    f"/api/v1/tables/{table_id}/actions", {"action": "bet", "amount": view["min_bet"]}, format="json"
                )
            )
        elif "stand" in legal:
            ok(client.post(f"/api/v1/tables/{table_id}/actions", {"action": "stand"}, format="json"))
        else:
            raise AssertionError(f"nothing to play: {legal}")
    raise AssertionError("the hands did not come")


def _squatter(table_id: int, make_user: Any, client_for: Any, fund: Any) -> tuple[Any, Any, int]:
    """A player with chips who sits down and sits out: (user, his client, the version of his SeatTaken)."""
    squatter = make_user("squat")
    fund(squatter, 1_000)
    other = client_for(squatter)
    ok(other.post(f"/api/v1/tables/{table_id}/seats", {}, format="json"), 201)
    ok(other.post(f"/api/v1/tables/{table_id}/actions", {"action": "sit_out"}, format="json"))
    return squatter, other, _sat_version(table_id, squatter)


def _seated(table_id: int) -> set[int]:
    return set(TableSeat.objects.filter(table_id=table_id).values_list("user_id", flat=True))


def test_a_seat_sitting_out_for_three_hands_is_released_with_an_idle_event(
    house_table, player, make_user, client_for, fund, settings
):
    settings.SEAT_IDLE_MINUTES = 0
    settings.SEAT_IDLE_HANDS = 3
    client, table_id = house_table
    squatter, other, sat = _squatter(table_id, make_user, client_for, fund)
    _play_until(client, table_id, lambda: _hands_since(table_id, sat) >= 2)
    assert _hands_since(table_id, sat) == 2
    assert services.sweep_idle_seats() == 0  # two hands dealt without him: not yet
    assert squatter.pk in _seated(table_id)
    _play_until(client, table_id, lambda: _hands_since(table_id, sat) >= 3)
    assert services.sweep_idle_seats() == 1
    assert _seated(table_id) == {player.pk}  # the player who plays keeps his seat
    feed = ok(other.get(f"/api/v1/tables/{table_id}/events?after={sat}"))["events"]
    left = [e for e in feed if e["type"] == "SeatLeft"]
    assert [e["data"]["reason"] for e in left] == ["idle"]
    assert left[0]["data"]["player_id"] == str(squatter.pk)
    assert services.sweep_idle_seats() == 0  # nothing more to release
    ok(other.post(f"/api/v1/tables/{table_id}/seats", {}, format="json"), 201)  # he may sit again
    settled = Hand.objects.filter(table_id=table_id).count()
    _play_until(client, table_id, lambda: Hand.objects.filter(table_id=table_id, status="settled").count() >= settled)
    for hand in Hand.objects.filter(table_id=table_id, status="settled"):  # the release replays like any command
        assert verification_ok(verify_hand(hand, full=True)), hand.pk


def test_hands_alone_are_not_enough_the_minutes_must_pass_too(house_table, make_user, client_for, fund, settings):
    settings.SEAT_IDLE_MINUTES = 10
    settings.SEAT_IDLE_HANDS = 3
    client, table_id = house_table
    squatter, _, sat = _squatter(table_id, make_user, client_for, fund)
    _play_until(client, table_id, lambda: _hands_since(table_id, sat) >= 4)
    assert services.sweep_idle_seats() == 0
    assert squatter.pk in _seated(table_id)
    later = timezone.now() + timedelta(minutes=11)
    idle = idleness(table_id, squatter.pk, now=later)
    assert idle is not None and idle.hands >= 4


def test_a_player_alone_at_a_table_that_deals_nothing_is_released_after_the_minutes(
    as_staff, make_user, client_for, fund, settings
):
    settings.SEAT_IDLE_HANDS = 3
    table = create_table(as_staff, "classic")
    lone = make_user("lone")
    fund(lone, 1_000)
    client = client_for(lone)
    ok(client.post(f"/api/v1/tables/{table['id']}/seats", {}, format="json"), 201)
    settings.SEAT_IDLE_MINUTES = 10
    assert services.sweep_idle_seats() == 0
    settings.SEAT_IDLE_MINUTES = 0
    assert services.sweep_idle_seats() == 1
    assert _seated(table["id"]) == set()
    view = ok(client.get(f"/api/v1/tables/{table['id']}"))
    assert view["seats"] == [] and view["you"]["seat"] is None


def test_a_seat_in_the_hand_in_play_is_never_released(house_table, player, settings):
    settings.SEAT_IDLE_MINUTES = 0
    settings.SEAT_IDLE_HANDS = 0
    client, table_id = house_table
    _play_until(client, table_id, lambda: Hand.objects.filter(table_id=table_id, status="in_play").exists()
                and "stand" in ok(client.get(f"/api/v1/tables/{table_id}"))["you"]["legal_actions"])  # fmt: skip
    assert idleness(table_id, player.pk) is None
    assert services.table_release_idle_seat(table_id=table_id, user_id=player.pk) == 0
    assert player.pk in _seated(table_id)
