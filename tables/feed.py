"""A table's events feed as one viewer may see it: the one function behind every way of following a table.

``GET /tables/{id}/events`` (REST and its long-poll) and the WebSocket ``/ws/v1/tables/{id}`` both answer with
:func:`censor` of a :func:`load`: the events after a position, each through the core's viewer projection
(``view_event``, via :func:`tables.api.presenters.present_event`) for the viewer the user is *at the moment of
the read* (seated, staff, spectator: :func:`tables.selectors.viewer_for`). Loading is separate from censoring so
that one ASGI process can read a table's new events once and censor them once per viewer among its sockets
(every spectator is the same viewer, so they share one censored copy: :mod:`tables.live.reads`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser

from rules import Viewer
from tables.api.openapi import published
from tables.api.presenters import present_events
from tables.selectors import MAX_FEED_EVENTS, LoadedEvents, events_read, load_events, viewer_for

__all__ = ["MAX_FEED_EVENTS", "LoadedEvents", "censor", "load", "page", "viewer"]


def load(table_id: int, after: int, limit: int = MAX_FEED_EVENTS, watchers: Iterable[int] = ()) -> LoadedEvents:
    """Events with ``seq > after`` (at most ``limit``) and the state now (with the wallets and accounts of
    ``watchers``, for the table views of the live server). Raises ``not_found``."""
    return load_events(table_id, after, limit, watchers)


def censor(loaded: LoadedEvents, user: AbstractBaseUser) -> dict[str, Any]:
    """``{"events": [...], "last_seq": N}`` as ``user`` may see the loaded events now."""
    return published(present_events(events_read(loaded, user)))


def viewer(loaded: LoadedEvents, user: AbstractBaseUser) -> Viewer:
    """Who ``user`` is for these events (two users with the same viewer see exactly the same :func:`censor`)."""
    return viewer_for(loaded.state, user)


def page(table_id: int, user: AbstractBaseUser, after: int, limit: int = MAX_FEED_EVENTS) -> dict[str, Any]:
    """One page of the feed for ``user``: :func:`censor` of :func:`load`."""
    return censor(load(table_id, after, limit), user)
