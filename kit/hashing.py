"""Password hashing that cannot starve the server (issue 27): at most ``PASSWORD_HASH_CONCURRENCY`` hashes at once
per process.

A PBKDF2 hash (Django's default and recommended hasher, 1,000,000+ iterations) costs a core for a fraction of a
second and releases the GIL while it runs. Forty wrong sign-ins at once would then hold every core of a web
process, and everything else it serves (the REST API, the admin) would wait behind them. The hasher below is
Django's PBKDF2 (the same algorithm name, so stored hashes are untouched) whose every hash, of a sign-in, a
registration or a password change, first takes one of a few slots. A hash that waits longer than
``PASSWORD_HASH_WAIT_S`` for one is refused with 429 ``throttled`` (``Retry-After: 1``): the request is
refused, the server stays responsive, and the sign-in lockout and throttles count as usual.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from rest_framework.exceptions import Throttled

_lock = threading.Lock()
_slots: threading.BoundedSemaphore | None = None
_slots_size = 0


class HashingBusy(Throttled):
    """Every password-hashing slot stayed busy for ``PASSWORD_HASH_WAIT_S``: try again in a second."""

    default_detail = "The server is busy checking passwords; try again in a second."

    def __init__(self) -> None:
        super().__init__(wait=1, detail=self.default_detail)


def _semaphore() -> threading.BoundedSemaphore:
    global _slots, _slots_size
    size = max(1, int(settings.PASSWORD_HASH_CONCURRENCY))
    with _lock:
        if _slots is None or _slots_size != size:
            _slots, _slots_size = threading.BoundedSemaphore(size), size
        return _slots


@contextmanager
def hashing_slot() -> Iterator[None]:
    """Hold one of the process's hashing slots, or raise :class:`HashingBusy`."""
    slots = _semaphore()
    if not slots.acquire(timeout=float(settings.PASSWORD_HASH_WAIT_S)):
        raise HashingBusy()
    try:
        yield
    finally:
        slots.release()


class BoundedPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    """Django's PBKDF2-SHA256 hasher, a few hashes at a time per process."""

    def encode(self, password: str, salt: str, iterations: int | None = None) -> str:
        with hashing_slot():
            return str(super().encode(password, salt, iterations))
