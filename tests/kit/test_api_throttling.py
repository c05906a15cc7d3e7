"""Throttling, for real: enough requests through the real cache (Redis) until the limit answers 429."""

from __future__ import annotations

import secrets
import time
from typing import Any

import pytest
from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured

from casino import settings as project_settings
from kit.throttling import UserBurstThrottle, UserSustainedThrottle, parse_rate
from tests.support.api_helpers import assert_error, ledger_state

pytestmark = pytest.mark.django_db

TOKEN = "/api/v1/auth/token"
REGISTER = "/api/v1/auth/register"
WRONG = {"username": "nobody", "password": "not the password"}


def fresh_ip() -> str:
    """An address no earlier run has used, so no counter in Redis is left over."""
    return "10." + ".".join(str(b) for b in secrets.token_bytes(3))


def use_rates(settings: Any, num_proxies: int = 0, **rates: str | None) -> None:
    all_off = {"auth_burst": None, "auth_sustained": None, "user_burst": None, "user_sustained": None}
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**all_off, **rates},
        "NUM_PROXIES": num_proxies,
    }
    # the sign-in lockout is another guard (tests/accounts/test_admin_login_lockout.py): out of the way here
    settings.LOGIN_FAILURE_LIMIT = settings.LOGIN_ACCOUNT_FAILURE_LIMIT = 1000


def start_of_window(duration: int, needed: float) -> None:
    """Wait for a new window if fewer than ``needed`` seconds are left in this one."""
    left = duration - time.time() % duration
    if left < needed:
        time.sleep(left + 0.01)


def test_auth_endpoints_share_one_limit_per_ip(anon, settings):
    use_rates(settings, auth_sustained="4/hour")
    start_of_window(3600, 30)
    ip, other_ip = fresh_ip(), fresh_ip()
    statuses = [anon.post(TOKEN, WRONG, format="json", REMOTE_ADDR=ip).status_code for _ in range(4)]
    assert statuses == [400] * 4
    throttled = anon.post(TOKEN, WRONG, format="json", REMOTE_ADDR=ip)
    details = assert_error(throttled, 429, "throttled")
    assert 1 <= details["retry_after"] <= 3600
    assert throttled["Retry-After"] == str(details["retry_after"])
    body = {"username": "newcomer", "password": "a long passphrase 9"}
    assert_error(anon.post(REGISTER, body, format="json", REMOTE_ADDR=ip), 429, "throttled")
    assert anon.post(REGISTER, body, format="json", REMOTE_ADDR=other_ip).status_code == 201


def test_the_default_auth_rates_stop_a_burst(anon, settings, monkeypatch):
    """The rates the project ships with (no environment overrides) really throttle a burst of logins."""
    use_rates(settings, **project_settings.API_THROTTLE_RATES)
    limit, duration = parse_rate(project_settings.API_THROTTLE_RATES["auth_burst"])
    assert limit <= 10 and duration == 1, "a few per second"
    # the burst is one instant for the throttle's clock: a loaded machine (the parallel suite, other suites)
    # may take more than the one-second window to send it
    frozen = time.time()
    monkeypatch.setattr("kit.throttling.time", type("FrozenClock", (), {"time": staticmethod(lambda: frozen)}))
    ip = fresh_ip()
    statuses = [anon.post(TOKEN, WRONG, format="json", REMOTE_ADDR=ip).status_code for _ in range(limit + 1)]
    assert statuses == [400] * limit + [429]


def test_the_default_sustained_auth_rate_is_tens_per_minute():
    limit, duration = parse_rate(project_settings.API_THROTTLE_RATES["auth_sustained"])
    assert duration == 60 and 10 <= limit <= 100


def test_a_forged_forwarded_for_does_not_escape_the_ip_limit(anon, settings):
    use_rates(settings, auth_sustained="2/hour")
    start_of_window(3600, 30)
    ip = fresh_ip()
    statuses = [
        anon.post(TOKEN, WRONG, format="json", REMOTE_ADDR=ip, HTTP_X_FORWARDED_FOR=fresh_ip()).status_code
        for _ in range(3)
    ]
    assert statuses == [400, 400, 429]


def test_behind_a_trusted_proxy_each_forwarded_client_has_its_own_limit(anon, settings):
    use_rates(settings, num_proxies=1, auth_sustained="2/hour")
    start_of_window(3600, 30)
    proxy, alice, bob = fresh_ip(), fresh_ip(), fresh_ip()

    def post(client_ip: str) -> int:
        return anon.post(TOKEN, WRONG, format="json", REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR=client_ip).status_code

    assert [post(alice), post(alice), post(alice)] == [400, 400, 429]
    assert post(bob) == 400


def test_each_user_has_a_limit_of_their_own(player, make_user, client_for, settings):
    use_rates(settings, user_sustained="3/hour")
    start_of_window(3600, 30)
    other = make_user()
    window = int(time.time() // 3600)
    for user in (player, other):  # user ids restart with each test database: forget older runs' counts
        cache.delete(UserSustainedThrottle().cache_key(f"user:{user.pk}", window))
    mine, theirs = client_for(player), client_for(other)
    assert [mine.get("/api/v1/me").status_code for _ in range(3)] == [200] * 3
    assert_error(mine.get("/api/v1/me"), 429, "throttled")
    assert theirs.get("/api/v1/me").status_code == 200


def test_a_throttled_request_changes_nothing(staff, player, client_for, settings):
    use_rates(settings, user_burst="1/hour")
    start_of_window(3600, 30)
    cache.delete(UserBurstThrottle().cache_key(f"user:{staff.pk}", int(time.time() // 3600)))
    cashier = client_for(staff)
    body = {"username": player.username, "amount": 5, "reference": "r"}
    assert cashier.post("/api/v1/cashier/deposits", body, format="json").status_code == 201
    state = ledger_state()
    assert_error(
        cashier.post("/api/v1/cashier/deposits", body, format="json", HTTP_IDEMPOTENCY_KEY="t"), 429, "throttled"
    )
    assert ledger_state() == state


def test_with_the_cache_down_requests_are_let_through(anon, settings, monkeypatch):
    use_rates(settings, auth_sustained="1/hour")

    def down(*args: Any, **kwargs: Any) -> Any:
        raise ConnectionError("redis is down")

    monkeypatch.setattr(cache, "incr", down)
    ip = fresh_ip()
    assert [anon.post(TOKEN, WRONG, format="json", REMOTE_ADDR=ip).status_code for _ in range(3)] == [400] * 3


def test_a_scope_set_to_none_is_not_throttled(anon, settings):
    use_rates(settings)
    ip = fresh_ip()
    assert {anon.post(TOKEN, WRONG, format="json", REMOTE_ADDR=ip).status_code for _ in range(20)} == {400}


@pytest.mark.parametrize(("value", "expected"), [("", "7/minute"), ("off", None), ("3/second", "3/second")])
def test_rates_come_from_the_environment(monkeypatch, value, expected):
    monkeypatch.setenv("THROTTLE_TEST_RATE", value)
    assert project_settings.env_rate("THROTTLE_TEST_RATE", "7/minute") == expected


@pytest.mark.parametrize("value", ["lots", "5", "5/fortnight", "x/minute"])
def test_a_malformed_rate_in_the_environment_is_refused_at_start(monkeypatch, value):
    monkeypatch.setenv("THROTTLE_TEST_RATE", value)
    with pytest.raises(ImproperlyConfigured):
        project_settings.env_rate("THROTTLE_TEST_RATE", "7/minute")


@pytest.mark.parametrize(
    ("trusted", "num_proxies", "peer", "headers", "expected"),
    [
        (["127.0.0.1"], 0, "127.0.0.1", {"x-real-ip": "192.0.2.5"}, "192.0.2.5"),  # through the proxy
        (["127.0.0.1"], 0, "198.51.100.9", {"x-real-ip": "192.0.2.5"}, "198.51.100.9"),  # around it: the peer
        ([], 1, "127.0.0.1", {"x-forwarded-for": "192.0.2.5, 198.51.100.9"}, "198.51.100.9"),  # the last hop's
        ([], 0, "198.51.100.9", {"x-forwarded-for": "192.0.2.5", "x-real-ip": "192.0.2.5"}, "198.51.100.9"),
    ],
)
def test_a_socket_is_counted_under_the_address_http_requests_are(settings, trusted, num_proxies, peer, headers,
                                                                 expected):  # fmt: skip
    """The live server's share of unauthenticated sockets per address (tables/live/guard.py) follows the rule of
    the throttles and the sign-in lockout: a client reaching the servers directly cannot pick its address."""
    from kit.proxy import scope_client_address

    settings.TRUSTED_PROXIES = trusted
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": num_proxies}
    scope = {"client": (peer, 50000), "headers": [(k.encode(), v.encode()) for k, v in headers.items()]}
    assert scope_client_address(scope) == expected
