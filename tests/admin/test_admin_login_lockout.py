"""Staff (and player) sign-ins lock out after repeated failures (django-axes, casino/login_lockout.py): the admin
login and ``POST /api/v1/auth/token`` share the limits, per username and per client address; the right password
is refused while locked; an operator unlocks it (the admin's access attempts, or a management command)."""

from __future__ import annotations

import secrets

import pytest
from axes.models import AccessAttempt
from django.core.management import call_command
from django.test import Client

from tests.admin.conftest import PASSWORD

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
    assert body["error"]["code"] == "throttled" and "locked" in body["error"]["message"]
    assert set(body["error"]) == {"code", "message", "details"}


def test_a_hundred_wrong_staff_passwords_lock_the_admin_login_until_an_operator_unlocks_it(
    make_staff, as_operator, settings
):
    victim = make_staff("operator")
    attacker = Client()
    statuses = [_admin_login(attacker, victim.username, f"guess {n}").status_code for n in range(100)]
    assert statuses[: settings.AXES_FAILURE_LIMIT - 1] == [200] * (settings.AXES_FAILURE_LIMIT - 1)  # form again
    assert set(statuses[settings.AXES_FAILURE_LIMIT :]) == {429}
    # the right password, from anywhere, is refused while locked
    owner = Client()
    response = _admin_login(owner, victim.username, PASSWORD, ip="192.0.2.7")
    assert response.status_code == 429 and "locked" in response.content.decode()
    assert not _signed_in(owner)
    _assert_locked_api(_token(Client(), victim.username, PASSWORD, ip="192.0.2.8"))
    # an operator unlocks it in the admin: the access attempts of that username are deleted
    attempts = AccessAttempt.objects.filter(username=victim.username.lower())
    assert attempts.exists()
    for attempt in attempts:
        page = as_operator.post(f"/admin/axes/accessattempt/{attempt.pk}/delete/", {"post": "yes"})
        assert page.status_code == 302
    assert _admin_login(owner, victim.username, PASSWORD, ip="192.0.2.7").status_code == 302
    assert _signed_in(owner)


def test_the_auditor_sees_lockouts_but_cannot_unlock(make_staff, as_auditor):
    victim = make_staff("operator")
    for n in range(12):
        _admin_login(Client(), victim.username, f"guess {n}")
    attempt = AccessAttempt.objects.get(username=victim.username.lower())
    assert victim.username.lower() in as_auditor.get("/admin/axes/accessattempt/").content.decode()
    assert as_auditor.post(f"/admin/axes/accessattempt/{attempt.pk}/delete/", {"post": "yes"}).status_code == 403
    assert AccessAttempt.objects.filter(pk=attempt.pk).exists()


def test_failures_at_the_api_count_for_the_admin_login_and_a_command_unlocks(make_staff, settings):
    victim = make_staff("auditor")
    for n in range(settings.AXES_FAILURE_LIMIT):
        response = _token(Client(), victim.username.upper(), f"guess {n}", ip=f"198.51.100.{n}")
        assert response.status_code in (400, 429)
    _assert_locked_api(_token(Client(), victim.username, PASSWORD, ip="203.0.113.1"))
    assert _admin_login(Client(), victim.username, PASSWORD, ip="203.0.113.2").status_code == 429
    call_command("axes_reset_username", victim.username.lower())
    owner = Client()
    assert _admin_login(owner, victim.username, PASSWORD, ip="203.0.113.2").status_code == 302
    assert _signed_in(owner)


def test_one_address_guessing_many_usernames_is_locked_out(make_staff, settings):
    staff = [make_staff("operator") for _ in range(3)]
    attacker = Client()
    for n in range(settings.AXES_FAILURE_LIMIT + 2):
        _admin_login(attacker, staff[n % 3].username + "x", "guess")  # usernames that do not even exist
    response = _admin_login(attacker, staff[0].username, PASSWORD)
    assert response.status_code == 429
    # the same user from another address is not locked (no failures for his username)
    assert _admin_login(Client(), staff[0].username, PASSWORD, ip="10.9.9.9").status_code == 302


def test_a_success_clears_earlier_typos(make_staff, settings):
    user = make_staff("operator")
    for round_ in range(3):
        for n in range(settings.AXES_FAILURE_LIMIT - 1):
            _admin_login(Client(), user.username, f"typo {round_} {n}")
        assert _admin_login(Client(), user.username, PASSWORD).status_code == 302


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
