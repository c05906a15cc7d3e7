"""Database reads from async code: in a worker thread, the connection given back as soon as the read ends."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from asgiref.sync import sync_to_async

from tables.selectors import release_connection

P = ParamSpec("P")
T = TypeVar("T")


def read[**P, T](fn: Callable[P, T]) -> Callable[P, Awaitable[T]]:
    """``fn`` run in a worker thread; its database connection is released when it returns (no wait holds one)."""

    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return fn(*args, **kwargs)
        finally:
            release_connection()

    return sync_to_async(run, thread_sensitive=False)
