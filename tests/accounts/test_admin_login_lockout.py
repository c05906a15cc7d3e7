"""Sign-ins lock out after repeated failures (django-axes with accounts/login_lockout.py's handler; API.md v1.2
"Conventions"): the admin login and ``POST /api/v1/auth/token`` share the counts, per account and address pair
and per account over all addresses; the right password is refused while locked; the delay grows; a success
clears only its own pair; other accounts at the same address are never locked; an operator unlocks (audited)."""

from __future__ import annotations

import secrets
from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.contrib.admin.models import DELETION, LogEntry
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from accounts.login_lockout import lock_delay
from tests.support.admin_fixtures import PASSWORD

pytestmark = pytest.mark.django_db

LOGIN = "/admin/login/"
TOKEN = "/api/v1/auth/token"


def _admin_login(client: Client, username: str, password: str, ip: str = "10.0.0.1"):
    return client.post(LOGIN, {"username": username, "password": password, "next": "/admin/"}, REMOTE_ADDR=ip)


def _signed_in(client: Client) -> bool:
    return client.get("/admin/", follow=False).status_code == 200


def _token(client: Client, username: str, password: str, ip: str = "10.0.0.1"):
    return client.post(
        TOKEN, {"username": username, "password": password}, content_type="application/json", REMOTE_ADDR=ip
    )


def _assert_locked_api(response) -> None:
    assert response.status_code == 429
    body = response.json()
    assert body["error"]["code"] == "throttled" and "too many attempts" in body["error"]["message"].lower()
    assert int(response["Retry-After"]) == body["error"]["details"]["retry_after"] > 0
    assert set(body["error"]) == {"code", "message", "details"}


def _age_failures(username: str, seconds: float) -> None:
    """Play the clock forward: the failures of ``username`` happened ``seconds`` earlier."""
    AccessAttempt.objects.filter(username=username.lower()).update(
        attempt_time=timezone.now() - timedelta(seconds=seconds)
    )


def test_wrong_passwords_from_one_address_lock_that_pair_only(make_staff, settings):
    victim = make_staff("operator")
    attacker = Client()
    limit = settings.LOGIN_FAILURE_LIMIT
    statuses = [_admin_login(attacker, victim.username, f"guess {n}").status_code for n in range(limit + 5)]
    assert statuses[: limit - 1] == [200] * (limit - 1)  # the form again
    assert set(statuses[limit:]) == {429}
    # the right password from that address is refused while locked, and says when to try again
    refused = _admin_login(Client(), victim.username, PASSWORD)
    assert refused.status_code == 429 and "try again in 1 minutes" in refused.content.decode().lower()
    assert int(refused["Retry-After"]) <= settings.LOGIN_LOCKOUT_BASE_S
    locked = _token(Client(), victim.username, PASSWORD)
    _assert_locked_api(locked)
    assert locked.json()["error"]["details"]["locked"] == "pair"
    # the owner from his own address is not locked out by the attacker's address
    owner = Client()
    assert _admin_login(owner, victim.username, PASSWORD, ip="192.0.2.7").status_code == 302
    assert _signed_in(owner)


def test_the_delay_grows_with_further_failures(make_user, settings):
    victim = make_user("player")  # (API tokens are for players: kit/tokens.py)
    limit = settings.LOGIN_FAILURE_LIMIT
    for n in range(limit):
        _token(Client(), victim.username, f"guess {n}")
    first = int(_token(Client(), victim.username, PASSWORD)["Retry-After"])
    assert settings.LOGIN_LOCKOUT_BASE_S - 5 <= first <= settings.LOGIN_LOCKOUT_BASE_S
    _age_failures(victim.username, first + 1)  # the lock has passed: one more wrong guess
    assert _token(Client(), victim.username, "guess again").status_code == 429  # that failure locks again
    second = int(_token(Client(), victim.username, PASSWORD)["Retry-After"])
    assert second > first and second <= lock_delay(1)
    _age_failures(victim.username, lock_delay(1) + 1)
    assert _token(Client(), victim.username, PASSWORD).status_code == 200  # after the lock, the right one works


def test_failures_from_many_addresses_lock_the_account_everywhere(make_staff, settings):
    victim = make_staff("auditor")
    for n in range(settings.LOGIN_ACCOUNT_FAILURE_LIMIT):
        response = _token(Client(), victim.username.upper(), f"guess {n}", ip=f"198.51.100.{n}")
        assert response.status_code in (400, 429)
    locked = _token(Client(), victim.username, PASSWORD, ip="203.0.113.1")
    _assert_locked_api(locked)
    assert locked.json()["error"]["details"]["locked"] == "account"
    assert _admin_login(Client(), victim.username, PASSWORD, ip="203.0.113.2").status_code == 429
    call_command("axes_reset_username", victim.username.lower())
    owner = Client()
    assert _admin_login(owner, victim.username, PASSWORD, ip="203.0.113.2").status_code == 302
    assert _signed_in(owner)


def test_players_behind_one_address_never_lock_each_other_out(make_staff, make_user, settings):
    """The attack of issue 27: ten wrong passwords from one address locked every account there."""
    staff = [make_staff("operator") for _ in range(3)]
    players = [make_user("player") for _ in range(3)]
    attacker = Client()
    for n in range(settings.LOGIN_FAILURE_LIMIT * 4):
        _admin_login(attacker, staff[n % 3].username + "x", "guess")  # usernames that do not even exist
        _token(attacker, f"nobody{n}", "guess")
    for user, player in zip(staff, players, strict=True):  # the same address, other accounts: signed in at once
        owner = Client()
        assert _admin_login(owner, user.username, PASSWORD).status_code == 302
        assert _token(Client(), player.username, PASSWORD).status_code == 200


def test_an_insider_signing_in_between_guesses_gains_nothing(make_user, settings):
    """The attack of issue 27: a success cleared every failure of the address, so guessing another account
    between one's own sign-ins never locked."""
    insider = make_user("player")
    victim = make_user("player")
    limit = settings.LOGIN_FAILURE_LIMIT
    statuses = []
    for n in range(limit * 3):
        statuses.append(_token(Client(), victim.username, f"guess {n}").status_code)
        if n % (limit - 1) == limit - 2:
            assert _token(Client(), insider.username, PASSWORD).status_code == 200
    assert set(statuses[limit:]) == {429}
    _assert_locked_api(_token(Client(), victim.username, PASSWORD))


def test_a_success_clears_only_its_own_pair(make_user, make_staff, settings):
    user = make_user("player")
    limit = settings.LOGIN_FAILURE_LIMIT
    for n in range(limit - 1):
        _token(Client(), user.username, f"typo {n}", ip="10.1.1.1")
        _token(Client(), user.username, f"guess {n}", ip="10.2.2.2")
    assert _token(Client(), user.username, PASSWORD, ip="10.1.1.1").status_code == 200
    assert not AccessAttempt.objects.filter(username=user.username.lower(), ip_address="10.1.1.1").exists()
    assert AccessAttempt.objects.filter(username=user.username.lower(), ip_address="10.2.2.2").exists()
    _token(Client(), user.username, "one more", ip="10.2.2.2")
    _assert_locked_api(_token(Client(), user.username, PASSWORD, ip="10.2.2.2"))  # its failures were kept
    assert _token(Client(), user.username, PASSWORD, ip="10.1.1.1").status_code == 200
    staff = make_staff("operator")
    for round_ in range(3):  # typos then a success, again and again, from one address: never locked
        for n in range(limit - 1):
            _admin_login(Client(), staff.username, f"typo {round_} {n}", ip="10.3.3.3")
        assert _admin_login(Client(), staff.username, PASSWORD, ip="10.3.3.3").status_code == 302


def test_an_operator_unlocks_an_account_in_the_admin_and_it_is_audited(make_user, as_operator, operator, settings):
    victim = make_user("player")
    for n in range(settings.LOGIN_ACCOUNT_FAILURE_LIMIT):
        _token(Client(), victim.username, f"guess {n}", ip=f"198.51.100.{n}")
    _assert_locked_api(_token(Client(), victim.username, PASSWORD, ip="203.0.113.9"))
    one = AccessAttempt.objects.filter(username=victim.username.lower()).first()
    page = as_operator.post(
        "/admin/axes/accessattempt/",
        {"action": "unlock_usernames", "_selected_action": [one.pk]},
    )
    assert page.status_code == 302
    assert not AccessAttempt.objects.filter(username=victim.username.lower()).exists()
    audit = LogEntry.objects.filter(user=operator, action_flag=DELETION, change_message="unlocked sign-in")
    assert audit.count() == settings.LOGIN_ACCOUNT_FAILURE_LIMIT
    assert _token(Client(), victim.username, PASSWORD, ip="203.0.113.9").status_code == 200


def test_the_auditor_sees_lockouts_but_cannot_unlock(make_staff, as_auditor, settings):
    victim = make_staff("operator")
    for n in range(settings.LOGIN_FAILURE_LIMIT + 2):
        _admin_login(Client(), victim.username, f"guess {n}")
    attempt = AccessAttempt.objects.get(username=victim.username.lower())
    assert victim.username.lower() in as_auditor.get("/admin/axes/accessattempt/").content.decode()
    assert as_auditor.post(f"/admin/axes/accessattempt/{attempt.pk}/delete/", {"post": "yes"}).status_code == 403
    refused = as_auditor.post(
        "/admin/axes/accessattempt/", {"action": "unlock_usernames", "_selected_action": [attempt.pk]}
    )
    assert refused.status_code in (200, 302, 403)
    assert AccessAttempt.objects.filter(pk=attempt.pk).exists()


def test_the_admin_login_shares_the_per_address_throttle_of_the_api_sign_in(make_staff, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "auth_sustained": "3/hour"},
    }
    user = make_staff("operator")
    ip = "10." + ".".join(str(b) for b in secrets.token_bytes(3))  # a fresh address: no counter left in Redis
    assert _token(Client(), user.username, "wrong 1", ip=ip).status_code == 400
    assert _admin_login(Client(), user.username, "wrong 2", ip=ip).status_code == 200
    assert _token(Client(), user.username, "wrong 3", ip=ip).status_code == 400
    refused = _admin_login(Client(), user.username, PASSWORD, ip=ip)
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert _token(Client(), user.username, PASSWORD, ip=ip).status_code == 429
    other = "10." + ".".join(str(b) for b in secrets.token_bytes(3))
    assert _admin_login(Client(), user.username, PASSWORD, ip=other).status_code == 302  # another address
