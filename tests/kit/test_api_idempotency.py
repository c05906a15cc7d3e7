"""Idempotency-Key: a repeat returns the first answer and changes nothing; another body under the same key is
409; concurrent duplicates have one effect."""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import connection
from django.urls import get_resolver
from django.urls.resolvers import URLPattern, URLResolver
from rest_framework.test import APIClient

from kit.idempotency import is_idempotent
from ledger.models import Transaction
from ledger.selectors import wallet_balance
from tables.models import IdempotencyRecord, Table
from tests.support import api_test_urls
from tests.support.api_helpers import assert_error, field_errors, ledger_state

pytestmark = pytest.mark.django_db

DEPOSITS = "/api/v1/cashier/deposits"
WITHDRAWALS = "/api/v1/cashier/withdrawals"


def entry(user: AbstractBaseUser, amount: int, reference: str = "slip-1") -> dict[str, Any]:
    return {"username": user.get_username(), "amount": amount, "reference": reference}


def test_a_repeat_returns_the_first_response_and_posts_once(as_staff, player):
    first = as_staff.post(DEPOSITS, entry(player, 100), format="json", HTTP_IDEMPOTENCY_KEY="dep-1")
    state = ledger_state()
    again = as_staff.post(DEPOSITS, entry(player, 100), format="json", HTTP_IDEMPOTENCY_KEY="dep-1")
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert not first.has_header("Idempotent-Replayed")
    assert ledger_state() == state
    assert wallet_balance(player) == 100


def test_the_same_body_with_keys_in_another_order_is_the_same_request(as_staff, player):
    spaced = json.dumps({"username": player.username, "amount": 5, "reference": "r"})
    compact_reordered = json.dumps({"reference": "r", "amount": 5, "username": player.username}, separators=(",", ":"))
    as_staff.generic("POST", DEPOSITS, spaced, content_type="application/json", HTTP_IDEMPOTENCY_KEY="order")
    again = as_staff.generic(
        "POST", DEPOSITS, compact_reordered, content_type="application/json", HTTP_IDEMPOTENCY_KEY="order"
    )
    assert again.status_code == 201 and again["Idempotent-Replayed"] == "true"
    assert wallet_balance(player) == 5


def test_the_same_key_with_another_body_is_a_conflict_and_changes_nothing(as_staff, player):
    as_staff.post(DEPOSITS, entry(player, 100), format="json", HTTP_IDEMPOTENCY_KEY="dep-1")
    state = ledger_state()
    response = as_staff.post(DEPOSITS, entry(player, 101), format="json", HTTP_IDEMPOTENCY_KEY="dep-1")
    assert assert_error(response, 409, "idempotency_conflict") == {"idempotency_key": "dep-1"}
    assert ledger_state() == state


def test_the_same_key_on_another_endpoint_is_a_conflict(as_staff, player, fund):
    fund(player, 50)
    as_staff.post(DEPOSITS, entry(player, 10), format="json", HTTP_IDEMPOTENCY_KEY="k")
    state = ledger_state()
    response = as_staff.post(WITHDRAWALS, entry(player, 10), format="json", HTTP_IDEMPOTENCY_KEY="k")
    assert_error(response, 409, "idempotency_conflict")
    assert ledger_state() == state


def test_keys_belong_to_their_user(as_staff, player, make_user, client_for):
    other_cashier = client_for(make_user("cashier", is_staff=True))
    as_staff.post(DEPOSITS, entry(player, 10), format="json", HTTP_IDEMPOTENCY_KEY="shared")
    response = other_cashier.post(DEPOSITS, entry(player, 20), format="json", HTTP_IDEMPOTENCY_KEY="shared")
    assert response.status_code == 201 and not response.has_header("Idempotent-Replayed")
    assert wallet_balance(player) == 30


def test_without_a_key_every_request_acts(as_staff, player):
    as_staff.post(DEPOSITS, entry(player, 10), format="json")
    as_staff.post(DEPOSITS, entry(player, 10), format="json")
    assert wallet_balance(player) == 20
    assert IdempotencyRecord.objects.count() == 0


@pytest.mark.parametrize("key", ["", "x" * 101, "caf\u00e9", "tab\there", "new\nline"])
def test_a_malformed_key_is_invalid_request_and_changes_nothing(as_staff, player, key):
    state = ledger_state()
    response = as_staff.post(DEPOSITS, entry(player, 10), format="json", HTTP_IDEMPOTENCY_KEY=key)
    assert assert_error(response, 400, "invalid_request") == {"header": "Idempotency-Key"}
    assert ledger_state() == state


@pytest.mark.parametrize("key", ["a", "x" * 100, "~!@#$%^&*()_+{}|:<>? 09"])
def test_any_1_to_100_printable_ascii_characters_are_a_key(as_staff, player, key):
    response = as_staff.post(DEPOSITS, entry(player, 10), format="json", HTTP_IDEMPOTENCY_KEY=key)
    assert response.status_code == 201
    assert IdempotencyRecord.objects.filter(key=key).count() == 1


def test_the_ledger_cause_is_named_after_the_key(as_staff, staff, player):
    response = as_staff.post(DEPOSITS, entry(player, 10), format="json", HTTP_IDEMPOTENCY_KEY="slip 7")
    cause = Transaction.objects.get(pk=response.json()["transaction_id"]).cause
    assert cause == f"request:{staff.pk}:slip 7"


def test_without_a_key_the_ledger_cause_is_a_fresh_uuid(as_staff, player):
    first = as_staff.post(DEPOSITS, entry(player, 10), format="json").json()["transaction_id"]
    second = as_staff.post(DEPOSITS, entry(player, 10), format="json").json()["transaction_id"]
    causes = {Transaction.objects.get(pk=pk).cause for pk in (first, second)}
    assert len(causes) == 2
    assert all(cause.startswith("request:") and len(cause) == len("request:") + 36 for cause in causes)


# --- which outcomes are stored --------------------------------------------------------------------------------


def test_a_refusal_is_stored_and_replayed_even_after_the_state_changed(as_staff, player, fund):
    fund(player, 5)
    refused = as_staff.post(WITHDRAWALS, entry(player, 10), format="json", HTTP_IDEMPOTENCY_KEY="w-1")
    assert_error(refused, 409, "insufficient_funds")
    fund(player, 100)
    state = ledger_state()
    again = as_staff.post(WITHDRAWALS, entry(player, 10), format="json", HTTP_IDEMPOTENCY_KEY="w-1")
    assert_error(again, 409, "insufficient_funds")
    assert again.json() == refused.json() and again["Idempotent-Replayed"] == "true"
    assert ledger_state() == state
    fresh = as_staff.post(WITHDRAWALS, entry(player, 10), format="json", HTTP_IDEMPOTENCY_KEY="w-2")
    assert fresh.status_code == 201 and wallet_balance(player) == 95


def test_a_validation_error_is_stored_so_the_key_cannot_be_reused_for_another_body(as_staff, player):
    bad = as_staff.post(DEPOSITS, entry(player, 0), format="json", HTTP_IDEMPOTENCY_KEY="v-1")
    assert "amount" in field_errors(bad)
    again = as_staff.post(DEPOSITS, entry(player, 0), format="json", HTTP_IDEMPOTENCY_KEY="v-1")
    assert again.json() == bad.json() and again["Idempotent-Replayed"] == "true"
    assert_error(
        as_staff.post(DEPOSITS, entry(player, 1), format="json", HTTP_IDEMPOTENCY_KEY="v-1"),
        409,
        "idempotency_conflict",
    )
    assert wallet_balance(player) == 0


def test_a_malformed_body_is_not_stored(as_staff, player):
    response = as_staff.generic("POST", DEPOSITS, "{oops", content_type="application/json", HTTP_IDEMPOTENCY_KEY="m")
    assert_error(response, 400, "invalid_request")
    assert not IdempotencyRecord.objects.filter(key="m").exists()
    assert as_staff.post(DEPOSITS, entry(player, 3), format="json", HTTP_IDEMPOTENCY_KEY="m").status_code == 201


def test_a_request_refused_before_the_view_is_not_stored(as_player, player):
    assert_error(as_player.post(DEPOSITS, entry(player, 3), format="json", HTTP_IDEMPOTENCY_KEY="p"), 403, "forbidden")
    assert IdempotencyRecord.objects.count() == 0


@pytest.mark.urls("tests.support.api_test_urls")
def test_a_refusal_of_the_rules_is_stored_and_its_writes_rolled_back(as_player):
    api_test_urls.calls.clear()
    before = Table.objects.count()
    first = as_player.post("/api/v1/_test/domain", {"code": "not_your_turn"}, format="json", HTTP_IDEMPOTENCY_KEY="d")
    again = as_player.post("/api/v1/_test/domain", {"code": "not_your_turn"}, format="json", HTTP_IDEMPOTENCY_KEY="d")
    assert_error(first, 409, "not_your_turn")
    assert again.json() == first.json() and again.status_code == 409
    assert api_test_urls.calls == ["domain"]
    assert Table.objects.count() == before
    record = IdempotencyRecord.objects.get(key="d")
    assert (record.status_code, record.response) == (409, first.json())


@pytest.mark.urls("tests.support.api_test_urls")
def test_a_server_fault_is_not_stored_and_a_retry_runs_again(as_player):
    as_player.raise_request_exception = False
    api_test_urls.calls.clear()
    for _ in range(2):
        response = as_player.post("/api/v1/_test/server-fault", {}, format="json", HTTP_IDEMPOTENCY_KEY="f")
        assert_error(response, 500, "server_error")
    assert api_test_urls.calls == ["fault", "fault"]
    assert not IdempotencyRecord.objects.filter(key="f").exists()


@pytest.mark.urls("tests.support.api_test_urls")
def test_a_response_without_a_body_is_replayed_without_a_body(as_player):
    api_test_urls.calls.clear()
    first = as_player.post("/api/v1/_test/empty", format="json", HTTP_IDEMPOTENCY_KEY="e")
    again = as_player.post("/api/v1/_test/empty", format="json", HTTP_IDEMPOTENCY_KEY="e")
    assert first.status_code == again.status_code == 204
    assert again.content == b"" and again["Idempotent-Replayed"] == "true"
    assert api_test_urls.calls == ["empty"]


@pytest.mark.urls("tests.support.api_test_urls")
def test_an_action_without_a_key_is_one_transaction_too(as_player):
    before = Table.objects.count()
    assert_error(as_player.post("/api/v1/_test/ledger-refusal", {}, format="json"), 409, "insufficient_funds")
    assert Table.objects.count() == before


def test_anonymous_requests_check_the_key_but_store_nothing(anon):
    body = {"username": "newcomer", "password": "a long passphrase 9"}
    assert anon.post("/api/v1/auth/register", body, format="json", HTTP_IDEMPOTENCY_KEY="r").status_code == 201
    again = anon.post("/api/v1/auth/register", body, format="json", HTTP_IDEMPOTENCY_KEY="r")
    assert "username" in field_errors(again)
    assert IdempotencyRecord.objects.count() == 0
    assert_error(
        anon.post("/api/v1/auth/token", body, format="json", HTTP_IDEMPOTENCY_KEY="\u00e9"), 400, "invalid_request"
    )


def test_every_post_view_of_the_api_is_idempotent():
    def views(patterns: list[URLPattern | URLResolver]) -> list[Any]:
        found = []
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                found += views(pattern.url_patterns)
            elif hasattr(pattern.callback, "cls"):
                found.append(pattern.callback.cls)
        return found

    api = get_resolver("accounts.urls").url_patterns
    post_views = [view for view in views(api) if hasattr(view, "post")]
    assert post_views, "no POST views found"
    assert [view.__name__ for view in post_views if not is_idempotent(view.post)] == []


# --- concurrency ----------------------------------------------------------------------------------------------


def _in_threads(count: int, work: Callable[[int], Any]) -> list[Any]:
    barrier = threading.Barrier(count)
    results: list[Any] = [None] * count

    def run(i: int) -> None:
        try:
            barrier.wait()
            results[i] = work(i)
        except Exception as exc:  # reported by the assertions of the test
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def _same_sign_in(signed_in: APIClient) -> APIClient:
    """A client of its own (one per thread) signed in as ``signed_in`` is: its token or its session cookie."""
    client = APIClient()
    client.credentials(**signed_in._credentials)
    client.cookies = copy.deepcopy(signed_in.cookies)
    return client


@pytest.mark.django_db(transaction=True)
def test_concurrent_duplicates_have_one_effect(staff, player, client_for):
    signed_in = client_for(staff)

    def deposit(_: int) -> tuple[int, dict[str, Any], bool]:
        client = _same_sign_in(signed_in)
        response = client.post(DEPOSITS, entry(player, 25), format="json", HTTP_IDEMPOTENCY_KEY="same-slip")
        return response.status_code, response.json(), response.has_header("Idempotent-Replayed")

    results = _in_threads(8, deposit)
    assert all(isinstance(result, tuple) for result in results), results
    assert {status for status, _, _ in results} == {201}
    assert len({body["transaction_id"] for _, body, _ in results}) == 1
    assert sorted(replayed for _, _, replayed in results) == [False] + [True] * 7
    assert Transaction.objects.filter(kind="deposit").count() == 1
    assert wallet_balance(player) == 25
    assert IdempotencyRecord.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_requests_with_different_keys_all_act(staff, player, client_for):
    signed_in = client_for(staff)

    def deposit(i: int) -> int:
        client = _same_sign_in(signed_in)
        return client.post(DEPOSITS, entry(player, 25), format="json", HTTP_IDEMPOTENCY_KEY=f"slip-{i}").status_code

    assert _in_threads(8, deposit) == [201] * 8
    assert wallet_balance(player) == 200


@pytest.mark.django_db(transaction=True)
def test_concurrent_duplicate_withdrawals_take_the_chips_once(staff, player, client_for, fund):
    fund(player, 30)
    signed_in = client_for(staff)

    def withdraw(_: int) -> int:
        client = _same_sign_in(signed_in)
        return client.post(WITHDRAWALS, entry(player, 20), format="json", HTTP_IDEMPOTENCY_KEY="w").status_code

    assert _in_threads(6, withdraw) == [201] * 6
    assert wallet_balance(player) == 10
