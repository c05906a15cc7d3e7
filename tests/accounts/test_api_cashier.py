"""POST /cashier/deposits and POST /cashier/withdrawals (staff only)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.base_user import AbstractBaseUser

from kit.serializers import MAX_CHIP_AMOUNT
from ledger.models import Transaction
from ledger.selectors import balance, wallet_balance
from tests.support.api_helpers import assert_error, field_errors, ledger_state

pytestmark = pytest.mark.django_db

DEPOSITS = "/api/v1/cashier/deposits"
WITHDRAWALS = "/api/v1/cashier/withdrawals"


def entry(user: AbstractBaseUser, amount: Any, reference: Any = "slip-1") -> dict[str, Any]:
    return {"username": user.get_username(), "amount": amount, "reference": reference}


def test_a_deposit_credits_the_wallet_from_the_cage(as_staff, staff, player):
    response = as_staff.post(DEPOSITS, entry(player, 250, "receipt 17"), format="json")
    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"transaction_id", "balance"}
    assert body["balance"] == 250 == wallet_balance(player)
    assert balance("house:cage") == -250
    transaction = Transaction.objects.get(pk=body["transaction_id"])
    assert (transaction.kind, transaction.actor_id, transaction.memo) == ("deposit", staff.pk, "deposit receipt 17")


def test_the_balance_answered_is_the_one_right_after_the_entry(as_staff, player, fund):
    fund(player, 40)
    assert as_staff.post(DEPOSITS, entry(player, 2), format="json").json()["balance"] == 42


def test_a_withdrawal_pays_out_of_the_wallet(as_staff, player, fund):
    fund(player, 100)
    response = as_staff.post(WITHDRAWALS, entry(player, 60), format="json")
    assert response.status_code == 201
    assert response.json()["balance"] == 40 == wallet_balance(player)
    assert Transaction.objects.get(pk=response.json()["transaction_id"]).kind == "withdrawal"


def test_a_withdrawal_of_the_whole_balance_empties_the_wallet(as_staff, player, fund):
    fund(player, 100)
    assert as_staff.post(WITHDRAWALS, entry(player, 100), format="json").json()["balance"] == 0


def test_a_withdrawal_short_of_funds_is_409_and_changes_nothing(as_staff, player, fund):
    fund(player, 10)
    state = ledger_state()
    details = assert_error(as_staff.post(WITHDRAWALS, entry(player, 11), format="json"), 409, "insufficient_funds")
    assert details["balance"] == 10 and details["amount"] == 11
    assert ledger_state() == state


def test_a_withdrawal_from_a_player_without_a_wallet_is_insufficient_funds(as_staff, player):
    state = ledger_state()
    assert_error(as_staff.post(WITHDRAWALS, entry(player, 1), format="json"), 409, "insufficient_funds")
    assert ledger_state() == state


@pytest.mark.parametrize("path", [DEPOSITS, WITHDRAWALS])
def test_an_unknown_username_is_404_and_changes_nothing(as_staff, path):
    state = ledger_state()
    body = {"username": "nobody", "amount": 5, "reference": "r"}
    details = assert_error(as_staff.post(path, body, format="json"), 404, "not_found")
    assert details["field"] == "username"
    assert ledger_state() == state


@pytest.mark.parametrize("path", [DEPOSITS, WITHDRAWALS])
def test_players_may_not_use_the_cashier(as_player, player, fund, path):
    fund(player, 50)
    state = ledger_state()
    assert_error(as_player.post(path, entry(player, 5), format="json"), 403, "forbidden")
    assert ledger_state() == state


@pytest.mark.parametrize("path", [DEPOSITS, WITHDRAWALS])
def test_the_cashier_needs_a_signed_in_user(anon, player, path):
    assert_error(anon.post(path, entry(player, 5), format="json"), 401, "not_authenticated")


@pytest.mark.parametrize("amount", ["10", 10.0, 10.5, 0, -5, True, None, [10], {"v": 10}, MAX_CHIP_AMOUNT + 1])
@pytest.mark.parametrize("path", [DEPOSITS, WITHDRAWALS])
def test_the_amount_is_a_positive_json_integer(as_staff, player, fund, path, amount):
    fund(player, 100)
    state = ledger_state()
    assert set(field_errors(as_staff.post(path, entry(player, amount), format="json"))) == {"amount"}
    assert ledger_state() == state


def test_the_largest_amount_is_accepted(as_staff, player, settings):
    settings.CASHIER_SECOND_OPERATOR_ABOVE = (
        MAX_CHIP_AMOUNT  # no second operator asked for (tests/backoffice/test_four_eyes.py)
    )
    assert as_staff.post(DEPOSITS, entry(player, MAX_CHIP_AMOUNT), format="json").json()["balance"] == MAX_CHIP_AMOUNT


@pytest.mark.parametrize("reference", ["", 7, None, "r" * 201])
def test_the_reference_is_a_non_empty_string(as_staff, player, reference):
    assert set(field_errors(as_staff.post(DEPOSITS, entry(player, 5, reference), format="json"))) == {"reference"}


def test_missing_and_unknown_fields_are_named(as_staff, player):
    fields = field_errors(as_staff.post(DEPOSITS, {"username": player.username, "amt": 5}, format="json"))
    assert set(fields) == {"amt", "amount", "reference"}


def test_cashier_endpoints_only_take_post(as_staff):
    assert_error(as_staff.get(DEPOSITS), 405, "method_not_allowed")
    assert_error(as_staff.put(WITHDRAWALS, {}, format="json"), 405, "method_not_allowed")


def test_every_cashier_action_through_the_api_is_in_the_audit_log_with_its_actor(as_staff, staff, player, fund):
    """Issue #26: like the admin's cashier, the API's writes one audit line per entry, naming who did it; a
    refused one writes none."""
    from django.contrib.admin.models import ADDITION, LogEntry

    fund(player, 10)
    before = LogEntry.objects.count()
    deposit = as_staff.post(DEPOSITS, entry(player, 250, "receipt 18"), format="json").json()
    withdrawal = as_staff.post(WITHDRAWALS, entry(player, 60, "payout 3"), format="json").json()
    as_staff.post(WITHDRAWALS, entry(player, 10_000), format="json")  # refused: insufficient funds
    logs = list(LogEntry.objects.order_by("id")[before:])
    assert [(log.user_id, log.action_flag, log.object_id) for log in logs] == [
        (staff.pk, ADDITION, str(deposit["transaction_id"])),
        (staff.pk, ADDITION, str(withdrawal["transaction_id"])),
    ]
    assert logs[0].change_message.startswith(f"Deposit of 250 chips, player:{player.get_username()}, reference ")
    assert "Withdrawal of 60 chips" in logs[1].change_message and logs[1].change_message.endswith("[API]")
