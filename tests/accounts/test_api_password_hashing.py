"""Password hashing cannot starve the API (issue 27; kit/hashing.py): a burst of sign-ins hashes at most
``PASSWORD_HASH_CONCURRENCY`` passwords at once per process, one that waits too long for a slot is 429
``throttled`` with ``Retry-After``, and a request that hashes nothing is answered at once meanwhile.

The hash itself is made slow here (a real PBKDF2 of this machine's speed, stretched with a sleep) so that the
burst overlaps on a machine of any speed; everything else is the real hasher, API and database."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from django.contrib.auth import hashers
from django.contrib.auth.hashers import check_password, make_password
from django.db import connection
from rest_framework.test import APIClient

from kit.hashing import BoundedPBKDF2PasswordHasher

pytestmark = pytest.mark.django_db(transaction=True)

TOKEN = "/api/v1/auth/token"
HASH_S = 0.3


@pytest.fixture
def slow_hashes(settings: Any, monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    settings.PASSWORD_HASHERS = ["kit.hashing.BoundedPBKDF2PasswordHasher"]
    settings.PASSWORD_HASH_CONCURRENCY = 2
    settings.PASSWORD_HASH_WAIT_S = 1.0
    hashers.get_hashers.cache_clear()
    hashers.get_hashers_by_algorithm.cache_clear()
    seen = {"now": 0, "peak": 0}
    guard = threading.Lock()
    real = hashers.pbkdf2

    def slow(password: str, salt: str, iterations: int, *args: Any, **kwargs: Any) -> bytes:
        with guard:
            seen["now"] += 1
            seen["peak"] = max(seen["peak"], seen["now"])
        try:
            time.sleep(HASH_S)
            return real(password, salt, 1000, *args, **kwargs)
        finally:
            with guard:
                seen["now"] -= 1

    monkeypatch.setattr(hashers, "pbkdf2", slow)
    yield seen
    hashers.get_hashers.cache_clear()
    hashers.get_hashers_by_algorithm.cache_clear()


def test_the_hasher_keeps_djangos_algorithm_and_verifies_its_hashes(settings):
    settings.PASSWORD_HASHERS = ["kit.hashing.BoundedPBKDF2PasswordHasher"]
    hashers.get_hashers.cache_clear()
    hashers.get_hashers_by_algorithm.cache_clear()
    try:
        encoded = make_password("correct horse 42")
        assert encoded.startswith("pbkdf2_sha256$") and BoundedPBKDF2PasswordHasher.algorithm == "pbkdf2_sha256"
        assert check_password("correct horse 42", encoded) and not check_password("wrong", encoded)
    finally:
        hashers.get_hashers.cache_clear()
        hashers.get_hashers_by_algorithm.cache_clear()


def test_a_burst_of_sign_ins_hashes_two_at_a_time_and_the_api_stays_responsive(
    slow_hashes, make_user, client_for, settings
):
    victim = make_user("victim")
    reader = client_for(make_user("reader"))
    statuses: list[int] = []
    retry_after: list[str] = []

    def guess(n: int) -> None:
        try:
            response = APIClient().post(
                TOKEN, {"username": victim.username if n % 2 else f"nobody{n}", "password": f"guess {n}"},
                format="json", REMOTE_ADDR=f"10.7.0.{n}",
            )  # fmt: skip
            statuses.append(response.status_code)
            if response.status_code == 429:
                retry_after.append(response["Retry-After"])
        finally:
            connection.close()

    threads = [threading.Thread(target=guess, args=(n,)) for n in range(16)]
    for thread in threads:
        thread.start()
    time.sleep(HASH_S)
    started = time.monotonic()
    assert reader.get("/api/v1/tables").status_code == 200  # hashes nothing: not behind the burst
    assert time.monotonic() - started < 1.0
    for thread in threads:
        thread.join(timeout=60)
    assert slow_hashes["peak"] <= settings.PASSWORD_HASH_CONCURRENCY
    assert 400 in statuses and 429 in statuses  # some were checked, the rest refused, none waited for ever
    assert set(retry_after) == {"1"}
