"""The v1.3 ``{"type": "table", "table": <view>}`` message: the table view each socket's user would get from
``GET /tables/{id}`` at the version its last events message reached, built from the live process's shared read.

A change of a table is read once per process (:mod:`tables.live.reads`: the table row with the wallets of its
seated players and of every user watching it in this process, the new events, the state folded onto this
process's cached one); this module turns that one read into every watcher's view:

- the view as a :class:`~rules.Viewer` sees it (:func:`tables.api.presenters.present_viewer_table`: seats, hand,
  cards, the player's legal actions) is computed **once per version and viewer**: every spectator is one viewer,
  each seated player his own, staff the auditor;
- ``you`` also holds what belongs to the user rather than the viewer: his wallet (``you.balance``) and his
  responsible-gaming limits (``you.limits``, :func:`tables.api.views.your_limits`, from the account states of
  the watchers, read in the table row's statement). Users whose view and ``you`` come out the same (spectators with the
  same balance and limits) share one encoded text: the message is encoded **once per version and distinct
  (viewer, balance, limits)**, with msgspec, and every socket of those users is handed that same string.

Everything here runs in a worker thread (it may read the database); the texts of the latest version of each
table are kept per process, so reads of the same version that began at different cursors share them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from rules import Viewer
from tables import selectors
from tables.api import records
from tables.api.presenters import ViewerTable, present_viewer_table
from tables.api.views import your_limits

_encoder = msgspec.json.Encoder()
KEPT_TABLES = 4096  # tables whose latest version's texts a process keeps


@dataclass(slots=True)
class _Version:
    """The views of one table at one version, as far as they have been asked for. ``chain_hash``: the hash of the
    version's event, which names that state in any database (a table id and version alone could be another
    database's, after a restore or a test's flush)."""

    version: int
    chain_hash: str
    lock: threading.Lock = field(default_factory=threading.Lock)  # one computation at a time per version
    viewers: dict[Viewer, ViewerTable] = field(default_factory=dict)
    texts: dict[tuple[Viewer, int, records.YourLimits], str] = field(default_factory=dict)
    by_user: dict[int, str] = field(default_factory=dict)


_latest: OrderedDict[int, _Version] = OrderedDict()
_latest_lock = threading.Lock()


def _entry(table_id: int, version: int, chain_hash: str) -> _Version:
    """The kept views of ``table_id`` at ``version`` (a version older than the kept one gets views of its own,
    not kept: a read that ended late)."""
    with _latest_lock:
        kept = _latest.get(table_id)
        if kept is not None and kept.version > version:
            return _Version(version, chain_hash)
        if kept is None or kept.version != version or kept.chain_hash != chain_hash or not chain_hash:
            kept = _latest[table_id] = _Version(version, chain_hash)
        _latest.move_to_end(table_id)
        while len(_latest) > KEPT_TABLES:
            _latest.popitem(last=False)
        return kept


def messages(loaded: selectors.LoadedEvents, users: Sequence[Any]) -> dict[int, str]:
    """The JSON text of the ``table`` message of each of ``users`` (by user id) at the load's version. Runs in a
    worker thread: the wallets and accounts of users the load did not read with the table row (a socket that
    just opened) are read then, in one statement each for all of them."""
    table = loaded.table
    entry = _entry(loaded.table_id, loaded.state.version, table.last_hash if table is not None else "")
    with entry.lock:
        missing = list({int(user.pk): user for user in users if int(user.pk) not in entry.by_user}.values())
        if missing:
            for user, read in zip(missing, selectors.viewer_reads(loaded, missing), strict=True):
                entry.by_user[int(user.pk)] = _text(entry, read, your_limits(user, read.account))
        return {int(user.pk): entry.by_user[int(user.pk)] for user in users}


def _text(entry: _Version, read: selectors.TableRead, limits: records.YourLimits) -> str:
    shared = entry.viewers.get(read.viewer)
    if shared is None:
        shared = entry.viewers[read.viewer] = present_viewer_table(read)
    key = (read.viewer, read.balance, limits)
    text = entry.texts.get(key)
    if text is None:
        view = shared.with_you(read.balance, limits)
        text = entry.texts[key] = _encoder.encode({"type": "table", "table": view}).decode()
    return text


def forget_all() -> None:
    """Drop every kept view (tests)."""
    with _latest_lock:
        _latest.clear()
