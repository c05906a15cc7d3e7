"""POST /auth/register and POST /auth/token."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from kit.tokens import user_for_token
from tables.models import PlayerProfile
from tests.support.api_helpers import assert_error, field_errors, ledger_state

pytestmark = pytest.mark.django_db

REGISTER = "/api/v1/auth/register"
TOKEN = "/api/v1/auth/token"
GOOD = {"username": "alice", "password": "a long passphrase 9"}


def test_register_creates_a_player_with_a_token_and_a_profile(anon):
    response = anon.post(REGISTER, GOOD, format="json")
    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"id", "username", "token"}
    user = get_user_model().objects.get(pk=body["id"])
    assert (user.username, user.is_staff) == ("alice", False)
    assert user.check_password(GOOD["password"])
    assert user_for_token(body["token"]) == user
    assert len(PlayerProfile.objects.get(user=user).client_seed) == 32


def test_the_token_of_registration_signs_in(anon):
    token = anon.post(REGISTER, GOOD, format="json").json()["token"]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get("/api/v1/me").json()["username"] == "alice"


def test_registration_closed_is_403_and_creates_nobody(anon, settings):
    settings.REGISTRATION_OPEN = False
    state = ledger_state()
    assert_error(anon.post(REGISTER, GOOD, format="json"), 403, "forbidden")
    assert ledger_state() == state


@pytest.mark.parametrize("username", ["al", "a" * 31, "al ice", "al:ice", "_alice", "alicé", "", "alice\u0000"])
def test_a_username_breaking_the_rules_is_400_naming_username(anon, username):
    state = ledger_state()
    fields = field_errors(anon.post(REGISTER, {**GOOD, "username": username}, format="json"))
    assert set(fields) == {"username"}
    assert ledger_state() == state


@pytest.mark.parametrize("username", ["bob", "b.o-b_9", "9lives", "x" * 30])
def test_usernames_of_letters_digits_dots_dashes_and_underscores_are_fine(anon, username):
    assert anon.post(REGISTER, {**GOOD, "username": username}, format="json").status_code == 201


@pytest.mark.parametrize("taken", ["alice", "ALICE", "Alice"])
def test_a_taken_username_in_any_case_is_400_naming_username(anon, taken):
    anon.post(REGISTER, GOOD, format="json")
    state = ledger_state()
    fields = field_errors(anon.post(REGISTER, {**GOOD, "username": taken}, format="json"))
    assert fields == {"username": ["A user with that username already exists."]}
    assert ledger_state() == state


@pytest.mark.parametrize("password", ["short1", "password123", "x" * 129])
def test_a_password_failing_the_rules_is_400_naming_password(anon, password):
    state = ledger_state()
    fields = field_errors(anon.post(REGISTER, {**GOOD, "password": password}, format="json"))
    assert set(fields) == {"password"}
    assert ledger_state() == state


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ({"username": "alice"}, {"password"}),
        ({}, {"username", "password"}),
        ({**GOOD, "is_staff": True}, {"is_staff"}),
        ({**GOOD, "username": 12345}, {"username"}),
        ({**GOOD, "password": 123456789}, {"password"}),
    ],
)
def test_register_names_missing_unknown_and_mistyped_fields(anon, body, named):
    assert set(field_errors(anon.post(REGISTER, body, format="json"))) == named
    assert not get_user_model().objects.filter(is_staff=False).exists()  # (staff of other tests may outlive them)


def test_token_issues_a_new_token_on_every_call_and_each_signs_in(anon):
    registered = anon.post(REGISTER, GOOD, format="json").json()["token"]
    first = anon.post(TOKEN, GOOD, format="json")
    assert first.status_code == 200
    second = anon.post(TOKEN, GOOD, format="json").json()["token"]
    assert len({registered, first.json()["token"], second}) == 3
    user = get_user_model().objects.get(username=GOOD["username"])
    assert {user_for_token(t) for t in (registered, first.json()["token"], second)} == {user}


def test_token_for_a_user_without_one_creates_it(anon, player):
    response = anon.post(TOKEN, {"username": player.username, "password": "correct horse 42"}, format="json")
    assert user_for_token(response.json()["token"]) == player


@pytest.mark.parametrize(
    "body",
    [
        {"username": "alice", "password": "wrong password 1"},
        {"username": "nobody", "password": "a long passphrase 9"},
        {"username": "ALICE", "password": "a long passphrase 9"},
    ],
)
def test_wrong_credentials_are_400_invalid_request(anon, body):
    anon.post(REGISTER, GOOD, format="json")
    details = assert_error(anon.post(TOKEN, body, format="json"), 400, "invalid_request")
    assert details == {"fields": {"non_field_errors": ["Unable to log in with the provided credentials."]}}


def test_an_inactive_user_gets_no_token(anon, make_user):
    user = make_user("gone", is_active=False)
    body = {"username": user.username, "password": "correct horse 42"}
    assert_error(anon.post(TOKEN, body, format="json"), 400, "invalid_request")


def test_token_refuses_unknown_fields(anon):
    assert set(field_errors(anon.post(TOKEN, {**GOOD, "otp": "1"}, format="json"))) == {"otp"}


def test_auth_endpoints_ignore_a_bad_authorization_header(anon):
    anon.credentials(HTTP_AUTHORIZATION="Token stale-token")
    assert anon.post(REGISTER, GOOD, format="json").status_code == 201
    assert anon.post(TOKEN, GOOD, format="json").status_code == 200


@pytest.mark.parametrize("path", [REGISTER, TOKEN])
def test_auth_endpoints_only_take_post(anon, path):
    assert_error(anon.get(path), 405, "method_not_allowed")
