"""The one exception handler: every error has the API's body, the status of its code, and rolls back."""

from __future__ import annotations

import pytest
from django.db import connection
from rest_framework.test import APIClient

from gamemath import errors as rules_errors
from kit.api_errors import STATUS_BY_CODE, error_response, status_for
from ledger.errors import BankCannotCover, IdempotencyConflict, InvalidEntry, LedgerInvariantError, UnknownAccount
from tables.models import IdempotencyRecord, Table
from tests.support import api_test_urls
from tests.support.api_helpers import assert_error, field_errors

pytestmark = pytest.mark.django_db


# --- the mapping table -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "status"),
    [
        ("not_your_turn", 409),
        ("wrong_phase", 409),
        ("illegal_action", 409),
        ("insufficient_funds", 409),
        ("bank_cannot_cover", 409),
        ("seat_taken", 409),
        ("table_full", 409),
        ("already_seated", 409),
        ("stale_version", 409),
        ("idempotency_conflict", 409),
        ("bet_out_of_limits", 400),
        ("invalid_request", 400),
        ("not_found", 404),
        ("some_future_refusal", 409),
    ],
)
def test_a_domain_error_of_the_rules_gets_the_status_of_its_code(code, status):
    response = error_response(rules_errors.DomainError("no", {"seat": 2}, code=code))
    assert response is not None
    assert response.status_code == status
    assert response.data == {"error": {"code": code, "message": "no", "details": {"seat": 2}}}


def test_every_error_code_of_the_rules_core_is_a_client_error():
    for code in rules_errors.ERROR_CODES:
        assert 400 <= status_for(code) < 500, code


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (BankCannotCover("banker short"), 409),
        (IdempotencyConflict("posted otherwise"), 409),
        (InvalidEntry("bad amount", {"field": "amount"}), 400),
        (UnknownAccount("no such player"), 404),
    ],
)
def test_ledger_refusals_map_by_their_code(error, status):
    response = error_response(error)
    assert response is not None and response.status_code == status
    assert response.data["error"]["code"] == error.code


def test_an_error_naming_a_field_lists_it_under_fields():
    response = error_response(InvalidEntry("amount must be positive", {"field": "amount"}))
    assert response is not None
    assert response.data["error"]["details"]["fields"] == {"amount": ["amount must be positive"]}


def test_a_ledger_invariant_error_is_a_server_fault_not_a_response():
    assert error_response(LedgerInvariantError("bug")) is None


def test_an_exception_without_a_code_is_a_server_fault():
    assert error_response(RuntimeError("boom")) is None
    assert error_response(KeyError("x")) is None


def test_the_table_has_no_success_statuses():
    assert all(400 <= status <= 599 for status in STATUS_BY_CODE.values())


# --- through HTTP -------------------------------------------------------------------------------------------


@pytest.mark.urls("tests.support.api_test_urls")
@pytest.mark.parametrize(("code", "status"), [("not_your_turn", 409), ("bet_out_of_limits", 400), ("not_found", 404)])
def test_a_refused_action_answers_the_error_body_and_rolls_its_writes_back(as_player, code, status):
    before = Table.objects.count()
    details = assert_error(as_player.post("/api/v1/_test/domain", {"code": code}, format="json"), status, code)
    assert details == {"why": "test"}
    assert Table.objects.count() == before


@pytest.mark.urls("tests.support.api_test_urls")
def test_the_handler_rolls_back_a_request_wide_transaction(as_player, monkeypatch):
    monkeypatch.setitem(connection.settings_dict, "ATOMIC_REQUESTS", True)
    before = Table.objects.count()
    assert_error(as_player.post("/api/v1/_test/undecorated", {}, format="json"), 409, "wrong_phase")
    assert Table.objects.count() == before


@pytest.mark.urls("tests.support.api_test_urls")
def test_a_server_fault_is_a_500_with_the_error_body_and_writes_nothing(as_player):
    as_player.raise_request_exception = False
    before = Table.objects.count()
    response = as_player.post("/api/v1/_test/server-fault", {}, format="json", HTTP_IDEMPOTENCY_KEY="fault-1")
    assert_error(response, 500, "server_error")
    assert Table.objects.count() == before
    assert not IdempotencyRecord.objects.filter(key="fault-1").exists()


@pytest.mark.urls("tests.support.api_test_urls")
def test_an_unhandled_exception_on_an_api_path_is_a_json_500(as_player):
    as_player.raise_request_exception = False
    assert_error(as_player.get("/api/v1/_test/crash"), 500, "server_error")


@pytest.mark.urls("tests.support.api_test_urls")
def test_an_unknown_api_url_is_a_json_404(as_player, anon):
    assert_error(as_player.get("/api/v1/no-such-thing"), 404, "not_found")
    assert_error(anon.post("/api/v2/me", {}, format="json"), 404, "not_found")


@pytest.mark.urls("tests.support.api_test_urls")
def test_an_unknown_url_outside_the_api_keeps_django_s_page(anon):
    response = anon.get("/no-such-page")
    assert response.status_code == 404
    assert not response["Content-Type"].startswith("application/json")


def test_the_test_urlconf_wires_the_handlers_of_kit_error_views():
    assert api_test_urls.handler404 == "kit.error_views.page_not_found"
    assert api_test_urls.handler500 == "kit.error_views.server_error"


# --- what a client can send ------------------------------------------------------------------------------------


def test_malformed_json_is_invalid_request(as_staff):
    response = as_staff.generic(
        "POST", "/api/v1/cashier/deposits", '{"username": "x", "amount": 1,', content_type="application/json"
    )
    assert_error(response, 400, "invalid_request")


def test_invalid_utf8_is_invalid_request(as_staff):
    response = as_staff.generic(
        "POST", "/api/v1/cashier/deposits", b'{"username": "\xff\xfe"}', content_type="application/json"
    )
    assert_error(response, 400, "invalid_request")


@pytest.mark.parametrize("body", ['{"amount": NaN}', '{"amount": Infinity}', "[1, 2]", '"text"', "null", "17"])
def test_a_body_that_is_not_a_json_object_of_numbers_is_invalid_request(as_staff, body):
    response = as_staff.generic("POST", "/api/v1/cashier/deposits", body, content_type="application/json")
    assert_error(response, 400, "invalid_request")


def test_a_huge_integer_is_invalid_request_not_a_500(as_staff, player):
    body = '{"username": "' + player.username + '", "amount": 1' + "0" * 5000 + ', "reference": "r"}'
    response = as_staff.generic("POST", "/api/v1/cashier/deposits", body, content_type="application/json")
    assert_error(response, 400, "invalid_request")


def test_unknown_fields_are_named(as_staff, player):
    body = {"username": player.username, "amount": 5, "reference": "r", "amout": 5, "note": "x"}
    fields = field_errors(as_staff.post("/api/v1/cashier/deposits", body, format="json"))
    assert set(fields) == {"amout", "note"}
    assert fields["note"] == ["Unknown field."]


def test_unknown_and_invalid_fields_are_named_together(as_staff):
    fields = field_errors(as_staff.post("/api/v1/cashier/deposits", {"amount": "1", "extra": 1}, format="json"))
    assert set(fields) == {"amount", "extra", "username", "reference"}


def test_a_string_where_a_string_is_expected_may_not_be_a_number(as_staff):
    fields = field_errors(
        as_staff.post("/api/v1/cashier/deposits", {"username": 17, "amount": 1, "reference": 2}, format="json")
    )
    assert set(fields) == {"username", "reference"}


@pytest.mark.parametrize("escaped", ["a\\u0000b", "\\ud800", "\\u00e9"])
def test_strings_postgresql_cannot_store_are_refused(as_player, escaped):
    body = '{"client_seed": "' + escaped + '"}'  # JSON escapes: a NUL, a lone surrogate, a non-ASCII letter
    response = as_player.generic("PUT", "/api/v1/me/client-seed", body, content_type="application/json")
    assert "client_seed" in field_errors(response)


def test_a_form_body_is_unsupported_media_type(as_staff):
    response = as_staff.post("/api/v1/cashier/deposits", {"username": "x", "amount": 1, "reference": "r"})
    assert_error(response, 415, "unsupported_media_type")


def test_a_body_over_the_upload_limit_is_refused_before_it_is_read(as_staff, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    body = '{"username": "x", "amount": 1, "reference": "%s"}' % ("r" * 200)
    response = as_staff.generic("POST", "/api/v1/cashier/deposits", body, content_type="application/json")
    assert_error(response, 413, "request_too_large")


def test_no_credentials_is_401_not_authenticated(anon):
    response = anon.get("/api/v1/me")
    assert_error(response, 401, "not_authenticated")
    assert response["WWW-Authenticate"] == "Token"


def test_a_wrong_token_is_401_not_authenticated():
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    assert_error(client.get("/api/v1/me"), 401, "not_authenticated")


def test_a_player_on_a_staff_endpoint_is_403_forbidden(as_player):
    assert_error(as_player.post("/api/v1/cashier/deposits", {}, format="json"), 403, "forbidden")


def test_a_wrong_method_is_405_method_not_allowed(as_player):
    response = as_player.delete("/api/v1/me")
    assert_error(response, 405, "method_not_allowed")
    assert "GET" in response["Allow"]


def test_an_unacceptable_accept_header_is_406(as_player):
    assert_error(as_player.get("/api/v1/me", HTTP_ACCEPT="application/xml"), 406, "not_acceptable")


def test_an_invalid_page_is_404_not_found(as_player):
    assert_error(as_player.get("/api/v1/me/ledger?page=99"), 404, "not_found")
    assert_error(as_player.get("/api/v1/me/ledger?page=abc"), 404, "not_found")


@pytest.mark.parametrize("name", ["\\ud800", "a\\u0000b"])
@pytest.mark.parametrize("key", [None, "weird-field"])
def test_an_unknown_field_named_with_unstorable_characters_is_still_a_400(as_staff, name, key):
    body = '{"' + name + '": 1}'
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
    response = as_staff.generic("POST", "/api/v1/cashier/deposits", body, content_type="application/json", **headers)
    fields = field_errors(response)
    assert len([name for name in fields if name not in {"username", "amount", "reference"}]) == 1


@pytest.mark.parametrize(
    "header", ["Token abc\x00def", "Token \u00e9\u00e9", "Token a b", "Token", "Basic xyz", "Token " + "a" * 5000]
)
def test_a_malformed_authorization_header_is_401_never_a_500(header):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header)
    assert_error(client.get("/api/v1/me"), 401, "not_authenticated")
