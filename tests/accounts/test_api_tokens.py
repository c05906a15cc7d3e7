"""API tokens as API.md v1.1 says: stored hashed, expiring (24 hours by default), ``POST /auth/logout`` revokes the
token used, a password change revokes them all; an expired token is 401 ``not_authenticated`` saying so."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.hashers import make_password
from django.db import connection
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.test import APIClient

from kit.tokens import issue_token, user_for_token
from tests.conftest import owner_cursor
from tests.support.api_helpers import assert_error

pytestmark = pytest.mark.django_db

ME = "/api/v1/me"
LOGOUT = "/api/v1/auth/logout"
TOKEN = "/api/v1/auth/token"


def _client(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def test_a_token_is_not_stored_as_it_is_sent(player):
    key = issue_token(player)
    assert len(key) == 64
    with connection.cursor() as cursor:
        cursor.execute("SELECT row_to_json(t)::text FROM knox_authtoken t")
        rows = [row[0] for row in cursor.fetchall()]
    assert rows and not any(key in row for row in rows)
    assert not any(key[15:31] in row for row in rows)  # only a 15-character lookup prefix is kept in the clear


def test_a_token_expires_after_24_hours_by_default(player, settings):
    assert timedelta(hours=24) == settings.API_TOKEN_TTL
    before = timezone.now()
    key = issue_token(player)
    token = AuthToken.objects.get(user=player)
    assert before + timedelta(hours=24) <= token.expiry <= timezone.now() + timedelta(hours=24)
    assert _client(key).get(ME).status_code == 200


def test_an_expired_token_is_401_not_authenticated_saying_it_expired(player, settings):
    settings.API_TOKEN_TTL = timedelta(seconds=-1)  # (the application role may not change a token's expiry)
    key = issue_token(player)
    response = _client(key).get(ME)
    assert_error(response, 401, "not_authenticated")
    assert "expired" in response.json()["error"]["message"]
    assert "/auth/token" in response.json()["error"]["message"]
    assert user_for_token(key) is None
    assert not AuthToken.objects.filter(user=player).exists()  # an expired token is deleted when seen


def test_logout_revokes_the_token_used_and_only_that_one(player):
    used, other = issue_token(player), issue_token(player)
    response = _client(used).post(LOGOUT)
    assert response.status_code == 204 and response.content == b""
    assert_error(_client(used).get(ME), 401, "not_authenticated")
    assert_error(_client(used).post(LOGOUT), 401, "not_authenticated")
    assert _client(other).get(ME).status_code == 200


def test_logout_needs_a_signed_in_user(anon):
    assert_error(anon.post(LOGOUT), 401, "not_authenticated")


@pytest.mark.django_db(transaction=True)
def test_a_password_change_revokes_every_token_of_the_user(player, make_user):
    """Passwords are the owner's to change (issue #43); the database revokes the tokens of whoever's changes."""
    keys = [issue_token(player) for _ in range(3)]
    bystander = make_user("bystander")
    theirs = issue_token(bystander)
    with owner_cursor() as cursor:
        new = make_password("a brand new passphrase 7")
        cursor.execute("UPDATE auth_user SET password = %s WHERE id = %s", [new, player.pk])
    for key in keys:
        assert_error(_client(key).get(ME), 401, "not_authenticated")
    assert _client(theirs).get(ME).status_code == 200
    body = {"username": player.username, "password": "a brand new passphrase 7"}
    fresh = APIClient().post(TOKEN, body, format="json")
    assert _client(fresh.json()["token"]).get(ME).status_code == 200


def test_a_sign_in_with_a_hash_of_an_older_hasher_rewrites_nothing_and_revokes_nothing(player, settings):
    """Django would rewrite the hash at sign-in (the preferred hasher changed); the application role may not write
    a password, so the sign-in does not try (accounts/backends.py), and the tokens stay valid."""
    key = issue_token(player)
    settings.PASSWORD_HASHERS = [
        "django.contrib.auth.hashers.PBKDF2PasswordHasher",
        "django.contrib.auth.hashers.MD5PasswordHasher",
    ]
    old_hash = player.password
    body = {"username": player.username, "password": "correct horse 42"}
    assert APIClient().post(TOKEN, body, format="json").status_code == 200
    player.refresh_from_db()
    assert player.password == old_hash
    assert user_for_token(key) == player


@pytest.mark.parametrize("key", ["f" * 40, "0" * 64, "A" * 64, "z" * 64, "", "a\x00" * 32, "a" * 65, "é" * 64])
def test_user_for_token_refuses_what_is_no_live_token(player, key):
    issue_token(player)
    assert user_for_token(key) is None


@pytest.mark.django_db(transaction=True)
def test_user_for_token_finds_the_user_and_refuses_an_inactive_one(player):
    key = issue_token(player)
    assert user_for_token(key) == player
    with owner_cursor() as cursor:  # (deactivating an account is the owner's)
        cursor.execute("UPDATE auth_user SET is_active = false WHERE id = %s", [player.pk])
    assert user_for_token(key) is None
    assert_error(_client(key).get(ME), 401, "not_authenticated")


def test_an_old_40_character_token_is_refused_with_401(anon):
    anon.credentials(HTTP_AUTHORIZATION="Token " + "ab" * 20)
    assert_error(anon.get(ME), 401, "not_authenticated")


def test_the_token_lifetime_is_a_setting(player, settings):
    settings.API_TOKEN_TTL = timedelta(minutes=5)
    issue_token(player)
    token = AuthToken.objects.get(user=player)
    assert token.expiry <= timezone.now() + timedelta(minutes=5)


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "Token", "TOKEN"])
def test_bearer_is_a_synonym_of_token_in_any_case(player, scheme):
    """API.md v1.2: ``Authorization: Bearer <key>`` is accepted as ``Token <key>`` (a scheme's case does not matter)."""
    key = issue_token(player)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"{scheme} {key}")
    answer = client.get(ME)
    assert answer.status_code == 200, answer.content
    assert answer.json()["username"] == player.username


@pytest.mark.parametrize("header", ["Bearer", "Bearer a b", "Basic Zm9vOmJhcg==", "Bearer " + "ab" * 32])
def test_a_malformed_or_unknown_credential_is_401_not_a_500(anon, header):
    anon.credentials(HTTP_AUTHORIZATION=header)
    assert_error(anon.get(ME), 401, "not_authenticated")
