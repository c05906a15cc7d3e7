"""Reads of a table's new events, shared by the sockets of one process that ask the same question at once.

When a table changes, each of its sockets in this process wants the events after its last ``seq``; sockets
that are up to date all ask for the same ``(table, after)``. The first asks the database (in a worker thread,
:func:`tables.live.db.read`), the others await its answer. Each socket then censors that answer for its own
viewer (:func:`tables.feed.censor`): one read per table change, not one per socket.
"""

from __future__ import annotations

import asyncio
import weakref

from tables import feed
from tables.live import db

_load = db.read(feed.load)
_inflight: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[tuple[int, int], asyncio.Future[feed.LoadedEvents]]
] = weakref.WeakKeyDictionary()


async def load(table_id: int, after: int) -> feed.LoadedEvents:
    """:func:`tables.feed.load` of ``(table_id, after)``, shared with concurrent callers of this loop."""
    loop = asyncio.get_running_loop()
    pending = _inflight.setdefault(loop, {})
    key = (table_id, after)
    future = pending.get(key)
    if future is None:
        future = loop.create_future()
        pending[key] = future
        try:
            future.set_result(await _load(table_id, after))
        except asyncio.CancelledError:
            future.cancel()
            raise
        except Exception as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: no "never retrieved" warning when nobody else waited
        finally:
            del pending[key]
    return await asyncio.shield(future)  # a waiter cancelled does not cancel the others
