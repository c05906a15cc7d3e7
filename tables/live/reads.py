"""Reads of a table's new events, shared by the sockets of one process that ask the same question at once.

When a table changes, each of its sockets in this process wants the events after its last ``seq``; sockets
that are up to date all ask for the same ``(table, after)``. The first asks the database (in a worker thread,
:func:`tables.live.db.read`), the others await its answer. Each socket then censors that answer for its own
viewer (:func:`tables.feed.censor`): one read per table change, not one per socket. The censored message is
kept with the read for each distinct viewer (:func:`tables.feed.viewer`): the table's spectators, who are all
the same viewer, share one censored and serialised copy.

The read also holds what the v1.3 ``table`` message needs (:mod:`tables.live.table_views`): the table row's
statement reads the wallets and accounts of every user watching the table in this process (:meth:`Watch.users`)
with the seated players' wallets, and when the read reaches the table's version, the same worker thread builds
every watcher's view at that version (once per viewer, encoded once per distinct view). A socket whose user was
not watching when the read began (it just opened) gets its view built when it asks
(:meth:`SharedRead.table_message_for`).
"""

from __future__ import annotations

import asyncio
import json
import weakref
from dataclasses import dataclass, field
from typing import Any

from rest_framework.utils.encoders import JSONEncoder

from rules import Viewer
from tables import feed
from tables.live import db, table_views
from tables.live.watch import stamp, watch


@dataclass(slots=True)
class SharedRead:
    """One read of a table's events, with its censored messages by viewer and, when it reaches the table's
    version, the ``table`` message of each user (by id) watching when it began."""

    loaded: feed.LoadedEvents
    messages: dict[Viewer, tuple[str, int]] = field(default_factory=dict)
    tables: dict[int, str] = field(default_factory=dict)

    @property
    def reaches_version(self) -> bool:
        """Whether the read's events end at the state it was read with (a ``table`` message follows them)."""
        events = self.loaded.events
        return bool(events) and events[-1][0].version == self.loaded.state.version

    async def table_message_for(self, user: Any) -> str:
        """The JSON text of the ``table`` message for ``user`` at the read's version."""
        text = self.tables.get(int(user.pk))
        if text is None:
            text = (await _views(self.loaded, [user]))[int(user.pk)]
        return text

    def message_for(self, user: Any) -> tuple[str, int]:
        """``(JSON text of the events message, its last_seq)`` as ``user`` may see the read."""
        viewer = feed.viewer(self.loaded, user)
        cached = self.messages.get(viewer)
        if cached is None:
            body = feed.censor(self.loaded, user)
            text = json.dumps({"type": "events", **body}, cls=JSONEncoder, ensure_ascii=False, separators=(",", ":"))
            cached = self.messages[viewer] = (text, body["last_seq"])
        return cached


def _load_with_views(table_id: int, after: int, users: list[Any]) -> SharedRead:
    """The read (in a worker thread): the events after ``after``, the state, the wallets of ``users``; and when
    the events reach the state's version, the ``table`` message of each of ``users``."""
    loaded = feed.load(table_id, after, watchers=[int(user.pk) for user in users])
    read = SharedRead(loaded)
    if users and read.reaches_version:
        read.tables = table_views.messages(loaded, users)
    return read


_load = db.read(_load_with_views)
_views = db.read(table_views.messages)


@dataclass(slots=True)
class _Inflight:
    started: int  # the read's stamp (tables.live.watch.stamp): what it was asked after
    task: asyncio.Task[SharedRead]


_inflight: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[int, int], _Inflight]] = (
    weakref.WeakKeyDictionary()
)


async def load(table_id: int, after: int, fresh_after: int = 0) -> SharedRead:
    """:func:`tables.feed.load` of ``(table_id, after)``, shared with concurrent callers of this loop.

    A caller joins a read in flight only if it was asked after the :func:`~tables.live.watch.stamp`
    ``fresh_after``: a socket woken by a commit passes the stamp of that announcement, and is never handed a read
    that began before it and so may not hold that commit (the socket would wait for the next change to see it).

    The read is a task of its own, not the first caller's: a caller cancelled (its socket closed) leaves the
    read running for the others, and each caller awaits it through a shield so that cancelling one cancels
    nobody else."""
    loop = asyncio.get_running_loop()
    pending = _inflight.setdefault(loop, {})
    key = (table_id, after)
    shared = pending.get(key)
    if shared is None or shared.started < fresh_after:
        users = watch().users(table_id)  # the read builds their views (a user who comes later asks for his)
        task = loop.create_task(_load(table_id, after, users), name=f"live-read-{table_id}-{after}")
        shared = pending[key] = _Inflight(stamp(), task)
        task.add_done_callback(lambda done: _forget(pending, key, done))
    return await asyncio.shield(shared.task)


def _forget(pending: dict[tuple[int, int], _Inflight], key: tuple[int, int], done: asyncio.Task[SharedRead]) -> None:
    """A read ended: later callers start a new one. Its exception is marked retrieved (no "never retrieved"
    warning when every caller had left)."""
    shared = pending.get(key)
    if shared is not None and shared.task is done:
        del pending[key]
    if not done.cancelled():
        done.exception()
