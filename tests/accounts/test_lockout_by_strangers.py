"""Strangers cannot lock an account out, and one address cannot try every account (issue #43; DESIGN.md pitfall:
"a lockout counted per account alone lets anyone lock any account; counted per address alone lets one address
try every account"; accounts/login_lockout.py).

The attacks, over HTTP as the deployment sees addresses (behind the proxy: ``X-Real-IP`` from a trusted proxy,
or ``X-Forwarded-For`` with ``THROTTLE_NUM_PROXIES``):

- five wrong passwords from each of four addresses locked any account everywhere, the operator's included, and
  one guess per period kept it locked: now an address the account signed in from before is never locked by
  failures from other addresses;
- a header naming the owner's address, sent by a client that is not the proxy, does not borrow his exemption;
- one address guessing a few passwords at each of many accounts (never enough to lock a pair) is refused past a
  count of its own, except for the accounts that signed in from there before (players behind one NAT).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.test import Client
from django.utils import timezone

from tests.support.admin_fixtures import PASSWORD

pytestmark = pytest.mark.django_db

LOGIN = "/admin/login/"
TOKEN = "/api/v1/auth/token"
PROXY = "127.0.0.1"
OWNER_HOME = "192.0.2.10"
ATTACKERS = ["198.51.100.1", "198.51.100.2", "198.51.100.3", "198.51.100.4"]


@pytest.fixture
def behind_proxy(settings):
    """The compose deployment: nginx at 127.0.0.1 sets X-Real-IP (kit/proxy.py)."""
    settings.TRUSTED_PROXIES = [PROXY]


@pytest.fixture
def forwarded_for(settings):
    """The other deployment: one proxy appends the peer to X-Forwarded-For (``THROTTLE_NUM_PROXIES=1``)."""
    settings.TRUSTED_PROXIES = []
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}


def _admin_login(client: Client, username: str, password: str, address: str, *, peer: str = PROXY):
    return client.post(
        LOGIN,
        {"username": username, "password": password, "next": "/admin/"},
        REMOTE_ADDR=peer,
        HTTP_X_REAL_IP=address,
    )


def _token(username: str, password: str, address: str, *, header: str = "HTTP_X_FORWARDED_FOR"):
    """``POST /auth/token`` through the proxy, which names the client's ``address`` in ``header``."""
    return Client().post(
        TOKEN,
        {"username": username, "password": password},
        content_type="application/json",
        REMOTE_ADDR=PROXY,
        **{header: address},
    )


def _token_behind_proxy(username: str, password: str, address: str):
    return _token(username, password, address, header="HTTP_X_REAL_IP")


def _age_failures(username: str, seconds: float) -> None:
    """Play the clock forward: the failures of ``username`` happened ``seconds`` earlier."""
    AccessAttempt.objects.filter(username=username.lower()).update(
        attempt_time=timezone.now() - timedelta(seconds=seconds)
    )


def test_strangers_never_lock_the_operator_out_of_the_address_he_signed_in_from(behind_proxy, make_staff, settings):
    operator = make_staff("operator")
    assert _admin_login(Client(), operator.username, PASSWORD, OWNER_HOME).status_code == 302  # his usual place
    per_address = settings.LOGIN_ACCOUNT_FAILURE_LIMIT // len(ATTACKERS)
    assert per_address <= settings.LOGIN_FAILURE_LIMIT  # the attack of the issue: 5 from each of 4 addresses
    for address in ATTACKERS:
        for n in range(per_address):
            _admin_login(Client(), operator.username, f"guess {n}", address)
    # a new address is locked (the account-wide count protects the password from a distributed guess) ...
    assert _admin_login(Client(), operator.username, PASSWORD, "203.0.113.5").status_code == 429
    # ... his own is not
    owner = Client()
    assert _admin_login(owner, operator.username, PASSWORD, OWNER_HOME).status_code == 302
    assert owner.get("/admin/").status_code == 200
    # one guess per period kept the account locked: still never from his address
    for period in range(3):
        _age_failures(operator.username, settings.LOGIN_LOCKOUT_MAX_S + 1)
        _admin_login(Client(), operator.username, f"one more {period}", ATTACKERS[period])
        assert _admin_login(Client(), operator.username, PASSWORD, "203.0.113.5").status_code == 429
        assert _admin_login(Client(), operator.username, PASSWORD, OWNER_HOME).status_code == 302


def test_strangers_never_lock_a_player_out_of_the_address_he_signed_in_from(forwarded_for, make_user, settings):
    player = make_user("player")
    assert _token(player.username, PASSWORD, OWNER_HOME).status_code == 200
    for n in range(settings.LOGIN_ACCOUNT_FAILURE_LIMIT):
        _token(player.username, f"guess {n}", ATTACKERS[n % len(ATTACKERS)])
    locked = _token(player.username, PASSWORD, "203.0.113.6")
    assert locked.status_code == 429 and locked.json()["error"]["details"]["locked"] == "account"
    assert _token(player.username, PASSWORD, OWNER_HOME).status_code == 200
    # the admin login and the API count the same: his address signed in through the API is known to both
    admin = Client().post(
        LOGIN,
        {"username": player.username, "password": PASSWORD, "next": "/admin/"},
        REMOTE_ADDR=PROXY,
        HTTP_X_FORWARDED_FOR=OWNER_HOME,
    )
    assert admin.status_code == 200  # the form again (he is no staff), not 429
    assert _admin_login(Client(), player.username, PASSWORD, "203.0.113.6", peer="203.0.113.6").status_code == 429


def test_a_header_naming_the_owners_address_borrows_nothing(behind_proxy, make_user, settings):
    player = make_user("player")
    assert _token_behind_proxy(player.username, PASSWORD, OWNER_HOME).status_code == 200
    for n in range(settings.LOGIN_ACCOUNT_FAILURE_LIMIT):
        _token_behind_proxy(player.username, f"guess {n}", ATTACKERS[n % len(ATTACKERS)])
    # straight to the servers (not through the proxy), claiming the owner's address: the peer counts
    direct = Client().post(
        TOKEN,
        {"username": player.username, "password": PASSWORD},
        content_type="application/json",
        REMOTE_ADDR=ATTACKERS[0],
        HTTP_X_REAL_IP=OWNER_HOME,
        HTTP_X_FORWARDED_FOR=OWNER_HOME,
    )
    assert direct.status_code == 429
    assert _token_behind_proxy(player.username, PASSWORD, OWNER_HOME).status_code == 200


def test_a_forged_forwarded_for_entry_borrows_nothing(forwarded_for, make_user, settings):
    player = make_user("player")
    assert _token(player.username, PASSWORD, OWNER_HOME).status_code == 200
    for n in range(settings.LOGIN_ACCOUNT_FAILURE_LIMIT):
        _token(player.username, f"guess {n}", ATTACKERS[n % len(ATTACKERS)])
    # the client wrote the owner's address first; the proxy appended the one it saw
    assert _token(player.username, PASSWORD, f"{OWNER_HOME}, {ATTACKERS[0]}").status_code == 429


def test_one_address_cannot_try_every_account(behind_proxy, make_user, settings):
    settings.LOGIN_ADDRESS_FAILURE_LIMIT = 12  # the default is larger; the rule is the same
    guesses = settings.LOGIN_FAILURE_LIMIT - 1  # never enough to lock any one pair
    neighbour = make_user("player")  # a player behind the same address, signed in from there before
    assert _token_behind_proxy(neighbour.username, PASSWORD, ATTACKERS[0]).status_code == 200
    victims = [make_user("player") for _ in range(6)]
    statuses = []
    for victim in victims:
        statuses += [_token_behind_proxy(victim.username, f"guess {n}", ATTACKERS[0]).status_code
                     for n in range(guesses)]  # fmt: skip
    limit = settings.LOGIN_ADDRESS_FAILURE_LIMIT
    assert statuses[: limit - 1] == [400] * (limit - 1)
    assert set(statuses[limit - 1 :]) == {429}  # the failure that reaches the count is answered as locked
    refused = _token_behind_proxy(victims[-1].username, PASSWORD, ATTACKERS[0])
    assert refused.status_code == 429 and refused.json()["error"]["details"]["locked"] == "address"
    assert int(refused["Retry-After"]) > 0
    assert _admin_login(Client(), victims[-1].username, PASSWORD, ATTACKERS[0]).status_code == 429
    # what stays open: the neighbour from the same address, and the victims from their own
    assert _token_behind_proxy(neighbour.username, PASSWORD, ATTACKERS[0]).status_code == 200
    assert _token_behind_proxy(victims[-1].username, PASSWORD, OWNER_HOME).status_code == 200
