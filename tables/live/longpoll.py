"""``GET /api/v1/tables/{id}/events?wait=S`` on the async side: a wait holds no thread, no connection.

The DRF view (:class:`tables.api.views.EventsView`) runs first, in a worker thread: authentication,
throttles, validation, and one read of the feed. When that read found nothing and the request asked to wait
(and this is the ASGI server), the view marks its response with a :class:`~tables.api.views.LongPoll` and gives
its database connection back. Here the wait then takes one of the user's open-wait slots (429 ``throttled``
with ``Retry-After`` when the user already holds ``LIVE_MAX_OPEN_WAITS``), registers with the process's table
watch, reads once more (a commit between the first read and the registration is not missed), and sleeps on
the event loop until the table changes or the wait ends; the answer is read and censored by
:mod:`tables.feed`, like every other.
"""

from __future__ import annotations

import asyncio
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from rest_framework import exceptions

from kit.api_errors import describe, error_body
from tables import feed
from tables.api.views import EventsView, LongPoll
from tables.live import db, limits
from tables.live.watch import watching

_rest_view = EventsView.as_view()
_load = db.read(feed.load)


async def events_view(request: HttpRequest, table_id: int) -> HttpResponse:
    response: Any = await sync_to_async(_rest_view)(request, table_id=table_id)
    poll: LongPoll | None = getattr(response, "long_poll", None)
    if poll is None:
        return response  # type: ignore[no-any-return]
    slot = await limits.acquire(poll.user.pk, "long_poll", poll.wait + 5)
    if isinstance(slot, limits.Refused):
        return _throttled(slot.retry_after)
    try:
        loaded = await _wait(poll)
    finally:
        await limits.release(slot)
    response.data = feed.censor(loaded, poll.user)
    return response  # type: ignore[no-any-return]


async def _wait(poll: LongPoll) -> feed.LoadedEvents:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + poll.wait
    async with watching(poll.table_id) as watcher:
        loaded = await _load(poll.table_id, poll.after)
        while not loaded.events:
            remaining = deadline - loop.time()
            if remaining <= 0 or not await watcher.wait(remaining):
                break
            if watcher.version > poll.after:
                loaded = await _load(poll.table_id, poll.after)
    return loaded


def _throttled(retry_after: int) -> HttpResponse:
    described = describe(exceptions.Throttled(wait=retry_after))
    assert described is not None
    code, message, details, headers = described
    message = f"Too many open waits: a user may hold {_cap()} long-polls and sockets at once."
    return JsonResponse(error_body(code, message, details), status=429, headers=headers)


def _cap() -> int:
    return int(settings.LIVE_MAX_OPEN_WAITS)


# drf-spectacular documents the view behind this function (it looks for ``cls``)
events_view.cls = EventsView  # type: ignore[attr-defined]
events_view.initkwargs = {}  # type: ignore[attr-defined]
