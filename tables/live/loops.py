"""One object per running event loop (an ASGI process has one; tests may run several in turn)."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable


def per_loop[T](make: Callable[[], T]) -> Callable[[], T]:
    """A function that returns the running loop's own ``make()``, made on its first call in that loop and
    forgotten with the loop."""
    made: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, T] = weakref.WeakKeyDictionary()

    def current() -> T:
        loop = asyncio.get_running_loop()
        found = made.get(loop)
        if found is None:
            found = made[loop] = make()
        return found

    return current
