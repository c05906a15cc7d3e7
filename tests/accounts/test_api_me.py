"""GET /me, PUT /me/client-seed, GET /me/ledger, GET /me/hands."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from accounts.services import set_client_seed
from tables.models import Hand, HandParticipant, PlayerProfile, Table
from tests.support.api_helpers import assert_error, field_errors, ledger_state

pytestmark = pytest.mark.django_db


# --- /me ------------------------------------------------------------------------------------------------------


def test_me_shows_the_player(as_player, player, fund):
    fund(player, 70)
    body = as_player.get("/api/v1/me").json()
    assert body == {
        "id": player.pk,
        "username": player.username,
        "balance": 70,
        "is_staff": False,
        "client_seed": PlayerProfile.objects.get(user=player).client_seed,
    }


def test_a_player_without_a_wallet_has_balance_0(as_player):
    assert as_player.get("/api/v1/me").json()["balance"] == 0


def test_staff_are_shown_as_staff(as_staff):
    assert as_staff.get("/api/v1/me").json()["is_staff"] is True


def test_the_client_seed_is_random_on_first_need_then_stays(as_player, client_for, make_user):
    assert not PlayerProfile.objects.exists()
    first = as_player.get("/api/v1/me").json()["client_seed"]
    assert re.fullmatch(r"[0-9a-f]{32}", first)
    assert as_player.get("/api/v1/me").json()["client_seed"] == first
    other = client_for(make_user()).get("/api/v1/me").json()["client_seed"]
    assert other != first


def test_me_needs_a_signed_in_user(anon):
    assert_error(anon.get("/api/v1/me"), 401, "not_authenticated")


# --- /me/client-seed -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", ["x", "my-lucky-seed", "~" * 64, "AZaz09!#$%&'()*+,-./;<=>?@[]^_`{|}"])
def test_put_client_seed_stores_it(as_player, player, seed):
    response = as_player.put("/api/v1/me/client-seed", {"client_seed": seed}, format="json")
    assert response.status_code == 200
    assert response.json() == {"client_seed": seed, "tables": []}  # v1.3: seated nowhere, set at no table
    assert PlayerProfile.objects.get(user=player).client_seed == seed
    assert as_player.get("/api/v1/me").json()["client_seed"] == seed


@pytest.mark.parametrize("seed", ["", "x" * 65, "has space", " lead", "a:b", "caf\u00e9", 42, None, ["a"]])
def test_a_bad_client_seed_is_400_naming_it_and_changes_nothing(as_player, player, seed):
    set_client_seed(player, "before")
    state = ledger_state()
    response = as_player.put("/api/v1/me/client-seed", {"client_seed": seed}, format="json")
    assert set(field_errors(response)) == {"client_seed"}
    assert ledger_state() == state


def test_client_seed_refuses_unknown_fields(as_player):
    fields = field_errors(as_player.put("/api/v1/me/client-seed", {"client_seed": "a", "seed": "b"}, format="json"))
    assert set(fields) == {"seed"}


def test_client_seed_is_set_with_put_only(as_player):
    assert_error(
        as_player.post("/api/v1/me/client-seed", {"client_seed": "a"}, format="json"), 405, "method_not_allowed"
    )


def test_client_seed_needs_a_signed_in_user(anon):
    assert_error(anon.put("/api/v1/me/client-seed", {"client_seed": "a"}, format="json"), 401, "not_authenticated")


# --- /me/ledger ---------------------------------------------------------------------------------------------


def test_my_ledger_lists_my_postings_newest_first(as_player, as_staff, player, make_user, fund):
    fund(player, 100)
    fund(make_user(), 999)  # someone else's
    as_staff.post(
        "/api/v1/cashier/withdrawals", {"username": player.username, "amount": 30, "reference": "atm"}, format="json"
    )
    body = as_player.get("/api/v1/me/ledger").json()
    assert set(body) == {"count", "next", "previous", "results"}
    assert body["count"] == 2 and body["next"] is None and body["previous"] is None
    newest, oldest = body["results"]
    assert set(newest) == {"transaction_id", "at", "kind", "amount", "balance_after", "hand_id", "memo"}
    assert (newest["kind"], newest["amount"], newest["balance_after"]) == ("withdrawal", -30, 70)
    assert (oldest["kind"], oldest["amount"], oldest["balance_after"]) == ("deposit", 100, 100)
    assert newest["hand_id"] is None and newest["memo"] == "withdrawal atm"
    assert newest["transaction_id"] > oldest["transaction_id"]
    assert datetime.fromisoformat(newest["at"]) >= datetime.fromisoformat(oldest["at"])


def test_my_ledger_is_empty_without_a_wallet(as_player):
    assert as_player.get("/api/v1/me/ledger").json() == {"count": 0, "next": None, "previous": None, "results": []}


def test_my_ledger_pages(as_player, player, fund):
    for amount in range(1, 6):
        fund(player, amount)
    first = as_player.get("/api/v1/me/ledger?page_size=2").json()
    assert first["count"] == 5 and [row["amount"] for row in first["results"]] == [5, 4]
    assert "page=2" in first["next"]
    third = as_player.get("/api/v1/me/ledger?page_size=2&page=3").json()
    assert [row["amount"] for row in third["results"]] == [1] and third["next"] is None


def test_the_page_size_is_capped(as_player, player, fund):
    for _ in range(3):
        fund(player, 1)
    assert len(as_player.get("/api/v1/me/ledger?page_size=100000").json()["results"]) == 3
    assert len(as_player.get("/api/v1/me/ledger?page_size=-1").json()["results"]) == 3


def test_my_ledger_needs_a_signed_in_user(anon):
    assert_error(anon.get("/api/v1/me/ledger"), 401, "not_authenticated")


# --- /me/hands ----------------------------------------------------------------------------------------------


def _hand(table: Table, number: int, **fields) -> Hand:
    opened = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(minutes=number)
    return Hand.objects.create(
        table=table,
        number=number,
        preset="classic",
        opened_version=number * 10,
        opened_at=opened,
        seed_commitment="0" * 64,
        **fields,
    )


def test_my_hands_lists_the_hands_i_played_newest_first(as_player, player, make_user):
    table = Table.objects.create(name="t", preset="classic")
    other = make_user()
    first = _hand(table, 1, status="settled", settled_at=datetime(2026, 1, 1, 0, 5, tzinfo=UTC))
    second = _hand(table, 2)
    not_mine = _hand(table, 3)
    HandParticipant.objects.create(hand=first, user=player, seat=2, role="punter", net=-10)
    HandParticipant.objects.create(hand=second, user=player, seat=1, role="banker")
    HandParticipant.objects.create(hand=not_mine, user=other, seat=1, role="punter")
    body = as_player.get("/api/v1/me/hands").json()
    assert body["count"] == 2
    assert body["results"] == [
        {
            "id": second.pk,
            "table": table.pk,
            "number": 2,
            "status": "in_play",
            "opened_at": "2026-01-01T00:02:00Z",
            "settled_at": None,
            "role": "banker",
            "seat": 1,
            "net": None,
        },
        {
            "id": first.pk,
            "table": table.pk,
            "number": 1,
            "status": "settled",
            "opened_at": "2026-01-01T00:01:00Z",
            "settled_at": "2026-01-01T00:05:00Z",
            "role": "punter",
            "seat": 2,
            "net": -10,
        },
    ]


def test_my_hands_is_empty_for_a_new_player(as_player):
    assert as_player.get("/api/v1/me/hands").json()["results"] == []


def test_my_hands_needs_a_signed_in_user(anon):
    assert_error(anon.get("/api/v1/me/hands"), 401, "not_authenticated")
