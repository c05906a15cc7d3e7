"""``Idempotency-Key`` for POST views: a repeat returns the first answer and changes nothing.

Decorate the ``post`` method of an APIView with :func:`idempotent` (one line). For a signed-in user who sends
the header, the view then runs like this, in one database transaction:

1. ``pg_advisory_xact_lock`` on (user, key): a concurrent request with the same key waits here until the first
   one commits or rolls back (taken before anything else, so it cannot deadlock with the view's own locks);
2. a stored record for (user, key) is the answer (the model ``settings.IDEMPOTENCY_RECORD_MODEL`` names,
   ``tables.IdempotencyRecord``, as ``AUTH_USER_MODEL`` names the user's: the kit imports no app): the same
   fingerprint (method, path and the canonical JSON body) replays its status and body (header ``Idempotent-Replayed:
   true``); another fingerprint is 409 ``idempotency_conflict``;
3. otherwise the view runs inside a savepoint. Its final outcome is stored with it, in the same transaction:
   a success, and also a 4xx (a validation error, a refusal such as 409 ``insufficient_funds``: the error
   handler rolls the savepoint back, so the action left no trace, and a retry sees the same answer instead of
   acting on a state that changed meanwhile). A 5xx is never stored: the whole transaction rolls back and a
   retry runs again.

Not stored: requests refused before the view runs (authentication, permission, throttling, a malformed
header, a body that is not JSON), and requests of anonymous users (register, token): there is no user to scope
the key to, and their answers hold credentials that must not be copied into another table. For these the
header is still checked, and ``request.idempotency_key`` is set for every decorated view (``None`` when absent).
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Callable
from typing import Any, cast

from django.apps import apps
from django.conf import settings
from django.db import connection, transaction
from django.db.models import JSONField, Value
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from kit.api_errors import ApiError, error_response

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
KEY_PATTERN = re.compile(r"[\x20-\x7e]{1,100}")


def _records() -> Any:
    """The model of the stored answers (``settings.IDEMPOTENCY_RECORD_MODEL``)."""
    return apps.get_model(settings.IDEMPOTENCY_RECORD_MODEL)


def idempotent[Handler: Callable[..., Response]](handler: Handler) -> Handler:
    """Make an APIView's ``post`` honour ``Idempotency-Key`` (see the module docstring)."""

    @functools.wraps(handler)
    def wrapper(view: APIView, request: Request, *args: Any, **kwargs: Any) -> Response:
        key = read_key(request)
        request.idempotency_key = key  # type: ignore[attr-defined]
        user = request.user
        if key is None or not user.is_authenticated:
            with transaction.atomic():
                return handler(view, request, *args, **kwargs)

        fingerprint = request_fingerprint(request)  # parses the body: a malformed one is refused here
        with transaction.atomic():
            _lock(int(user.pk), key)
            record = _records().objects.filter(user=user, key=key).first()
            if record is not None:
                if record.fingerprint != fingerprint:
                    raise ApiError(
                        "idempotency_conflict",
                        "This Idempotency-Key was already used with a different request.",
                        {"idempotency_key": key},
                    )
                return _replay(record)
            try:
                with transaction.atomic():
                    response = handler(view, request, *args, **kwargs)
            except Exception as exc:
                # The savepoint rolled the action back; the outcome is still the request's final answer.
                refused = error_response(exc, view.get_exception_handler_context())
                if refused is None:
                    raise
                refused.exception = True
                response = refused
            if response.status_code < 500:
                _records().objects.create(
                    user=user,
                    key=key,
                    fingerprint=fingerprint,
                    status_code=response.status_code,
                    response=_stored_body(response),
                )
        return response

    wrapper.idempotent = True  # type: ignore[attr-defined]
    return cast(Handler, wrapper)


def is_idempotent(handler: object) -> bool:
    """Whether a view method was decorated with :func:`idempotent`."""
    return bool(getattr(handler, "idempotent", False))


def idempotency_key(request: Request) -> str | None:
    """The request's valid ``Idempotency-Key``, or ``None`` (for views decorated with :func:`idempotent`)."""
    return cast(str | None, getattr(request, "idempotency_key", None))


def read_key(request: Request) -> str | None:
    """The ``Idempotency-Key`` header: absent is ``None``; present, it must be 1-100 printable ASCII."""
    key = request.headers.get(HEADER)
    if key is None:
        return None
    if not KEY_PATTERN.fullmatch(key):
        raise ApiError(
            "invalid_request",
            f"The {HEADER} header must be 1 to 100 printable ASCII characters.",
            {"header": HEADER},
        )
    return key


def request_fingerprint(request: Request) -> str:
    """sha256 over the method, the path and the canonical JSON of the body (keys sorted, no spaces)."""
    body = request.data
    canonical = json.dumps(
        {"method": request.method, "path": request.path, "body": body},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=True,  # escapes, so any parsed string (even a lone surrogate) can be hashed
        default=str,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def _lock(user_id: int, key: str) -> None:
    digest = hashlib.sha256(f"idempotency:{user_id}:{key}".encode()).digest()
    lock_id = int.from_bytes(digest[:8], "big", signed=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [lock_id])


def _stored_body(response: Response) -> Any:
    if response.data is None:
        return Value(None, JSONField())  # JSON null, not SQL NULL
    # Stored as rendered, so a replay is byte for byte what the first answer said (dates as strings, ...).
    return json.loads(JSONRenderer().render(response.data))


def _replay(record: Any) -> Response:
    return Response(record.response, status=record.status_code, headers={REPLAYED_HEADER: "true"})
