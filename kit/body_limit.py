"""A request body larger than ``DATA_UPLOAD_MAX_MEMORY_SIZE`` is refused by the ASGI server before Django reads
it (413; the API's error body on ``/api/``).

Django's ASGI handler reads the whole body into a spooled temporary file before any view or parser runs, with no
limit: a client streaming gigabytes (chunked, with no Content-Length) would fill the disk, and the API's parser,
which bounds what it reads (kit/parsers.py), would see none of it. This wrapper counts the bytes as they
arrive and answers 413 as soon as the announced or the received length passes the limit. Under WSGI (gunicorn)
a body without Content-Length is not read at all, and the parser bounds the rest.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from django.conf import settings

from kit.api_errors import error_body

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class _TooLarge(Exception):
    pass


def limit_request_body(app: ASGIApp) -> ASGIApp:
    """``app`` (an ASGI HTTP application) with request bodies bounded by ``DATA_UPLOAD_MAX_MEMORY_SIZE``."""

    async def limited(scope: Scope, receive: Receive, send: Send) -> None:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if scope["type"] != "http" or limit is None:
            await app(scope, receive, send)
            return
        if _declared_length(scope) > limit:
            await _refuse(scope, send, limit)
            return
        received = 0
        started = False

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise _TooLarge
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await app(scope, counting_receive, tracking_send)
        except _TooLarge:
            if not started:
                await _refuse(scope, send, limit)

    return limited


def _declared_length(scope: Scope) -> int:
    for name, value in scope.get("headers", []):
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return 0
    return 0


async def _refuse(scope: Scope, send: Send, limit: int) -> None:
    message = f"The request body is larger than {limit} bytes."
    if str(scope.get("path", "")).startswith("/api/"):
        body, content_type = json.dumps(error_body("request_too_large", message)).encode(), b"application/json"
    else:
        body, content_type = message.encode(), b"text/plain; charset=utf-8"
    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode()), (b"connection", b"close")]
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": body})
