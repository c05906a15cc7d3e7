"""The API's one error shape and the one place that maps errors to HTTP statuses.

Every error leaves the API as ``{"error": {"code", "message", "details"}}`` (spec/API.md). The status of a
response follows from its ``code`` through :data:`STATUS_BY_CODE`, and from nowhere else:

- DRF's own exceptions (validation, parsing, authentication, permission, 404, 405, throttling) get the code
  of :data:`DRF_EXCEPTION_CODES`;
- a domain error is any exception with a string ``code`` attribute (``gamemath.errors.DomainError``, the
  ledger's ``LedgerError``, :class:`ApiError`); its status is ``STATUS_BY_CODE[code]``, and a code the table
  does not know is a refusal by the current state: 409. An error that says it is the server's fault
  (``http_status >= 500``, such as the ledger's invariant errors) is not turned into a response: it is raised
  on as a bug, and Django answers 500 (``kit.error_views.server_error`` gives it the JSON body on ``/api/``
  paths);
- except when the unhandled exception says a service is out of reach (the database or Redis, see
  ``kit.error_views.service_unavailable``): then ``server_error`` answers 503 ``service_unavailable`` with
  ``Retry-After``.

:func:`exception_handler` is ``REST_FRAMEWORK["EXCEPTION_HANDLER"]``; :func:`error_response` is its pure part
(no rollback), for code such as the idempotency layer that has already rolled back its own savepoint.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import set_rollback

from kit.messages import localized

# --- the one table: code -> HTTP status --------------------------------------------------------------------------
STATUS_BY_CODE: dict[str, int] = {
    # the request itself is wrong
    "invalid_request": 400,
    "bet_out_of_limits": 400,
    "rules_refused": 400,  # v1.3: a house-banked table outside MIN_RTP-MAX_RTP (details {reason, rtp, limit, ...})
    "not_authenticated": 401,
    "forbidden": 403,
    "excluded": 403,  # v1.2: on a break or self-excluded (details.until)
    "not_found": 404,
    "method_not_allowed": 405,
    "not_acceptable": 406,
    "request_too_large": 413,
    "unsupported_media_type": 415,
    "throttled": 429,
    # well-formed, but the current state does not allow it
    "not_your_turn": 409,
    "wrong_phase": 409,
    "illegal_action": 409,
    "insufficient_funds": 409,
    "bank_cannot_cover": 409,
    "seat_taken": 409,
    "table_full": 409,
    "already_seated": 409,
    "not_seated": 409,
    "stale_version": 409,
    "idempotency_conflict": 409,
    "limit_reached": 409,  # v1.2 responsible gaming: details {kind, period, limit, used, remaining}
    "reality_check_due": 409,
    "seat_limit": 409,
    # ours
    "server_error": 500,
    "service_unavailable": 503,
}
# Seconds a client is asked to wait (``Retry-After``) before retrying after a 503 ``service_unavailable``.
RETRY_AFTER_S = 1
# A domain code the table does not list: a well-formed request the current state refuses.
REFUSAL_STATUS = 409

DRF_EXCEPTION_CODES: tuple[tuple[type[exceptions.APIException], str], ...] = (
    (exceptions.ValidationError, "invalid_request"),
    (exceptions.ParseError, "invalid_request"),
    (exceptions.NotAuthenticated, "not_authenticated"),
    (exceptions.AuthenticationFailed, "not_authenticated"),
    (exceptions.PermissionDenied, "forbidden"),
    (exceptions.NotFound, "not_found"),
    (exceptions.MethodNotAllowed, "method_not_allowed"),
    (exceptions.NotAcceptable, "not_acceptable"),
    (exceptions.UnsupportedMediaType, "unsupported_media_type"),
    (exceptions.Throttled, "throttled"),
)

_CODE_SHAPE = re.compile(r"[a-z][a-z0-9_]{0,63}")


def status_for(code: str) -> int:
    """The HTTP status of an error code."""
    return STATUS_BY_CODE.get(code, REFUSAL_STATUS)


class ApiError(Exception):
    """An error raised by the API layer itself, with a code of :data:`STATUS_BY_CODE`."""

    def __init__(self, code: str, message: str, details: Mapping[str, Any] | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.details: dict[str, Any] = dict(details or {})


def invalid_field(field: str, message: str) -> ApiError:
    """A 400 ``invalid_request`` naming one field, shaped like a serializer's validation error."""
    return ApiError("invalid_request", message, {"fields": {field: [message]}})


def error_body(code: str, message: str, details: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The error body of API.md. Its strings may echo what a client sent (an unknown field's name, a value in a
    message), so NUL characters and lone surrogates are written as escapes: neither JSON in UTF-8 nor
    PostgreSQL's jsonb (the idempotency records) could hold them; and each is cut at :data:`MAX_ECHO`
    characters. The message is given in English and returned in the active language (``localized``)."""
    message = localized(code, message)
    return {"error": {"code": code, "message": _storable(message), "details": _storable(dict(details or {}))}}


#: The longest string an error body repeats (a message may quote what the client sent: a 1 MB "action").
MAX_ECHO = 300


def _storable(value: Any) -> Any:
    if isinstance(value, str):
        if len(value) > MAX_ECHO:
            value = value[:MAX_ECHO] + "..."
        if value.isascii() and "\x00" not in value:
            return value
        return value.encode("utf-8", "backslashreplace").decode("utf-8").replace("\x00", "\\x00")
    if isinstance(value, Mapping):
        return {_storable(str(key)): _storable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_storable(item) for item in value]
    return value


# --- exceptions -> responses -----------------------------------------------------------------------------------------


def exception_handler(exc: Exception, context: Mapping[str, Any]) -> Response | None:
    """``REST_FRAMEWORK["EXCEPTION_HANDLER"]``: the error body for anything a client can cause, and the
    transaction rolled back; ``None`` (Django answers 500) for a server fault."""
    response = error_response(exc, context)
    if response is not None:
        set_rollback()
    return response


def error_response(exc: Exception, context: Mapping[str, Any] | None = None) -> Response | None:
    """The response for an exception, or ``None`` if it is a server fault (to be raised on)."""
    described = describe(exc)
    if described is None:
        return None
    code, message, details, headers = described
    response_status = status_for(code)
    if response_status >= 500:
        return None
    return Response(error_body(code, message, details), status=response_status, headers=headers)


def describe(exc: Exception) -> tuple[str, str, dict[str, Any], dict[str, str]] | None:
    """``(code, message, details, headers)`` of an exception a client caused, or ``None``."""
    if isinstance(exc, Http404):
        return "not_found", "Not found.", {}, {}
    if isinstance(exc, DjangoPermissionDenied):
        return "forbidden", str(exc) or "You do not have permission to perform this action.", {}, {}
    if isinstance(exc, DjangoValidationError):
        return "invalid_request", "; ".join(exc.messages), {"messages": exc.messages}, {}
    if isinstance(exc, RequestDataTooBig):
        return "request_too_large", "The request body is too large.", {}, {}
    if isinstance(exc, SuspiciousOperation):
        return "invalid_request", "The request was refused as malformed.", {}, {}
    if isinstance(exc, exceptions.APIException):
        return _describe_drf(exc)
    code = getattr(exc, "code", None)
    if isinstance(code, str) and _CODE_SHAPE.fullmatch(code):
        http_status = getattr(exc, "http_status", None)
        if isinstance(http_status, int) and http_status >= 500:
            return None
        message = getattr(exc, "message", None) or str(exc) or code
        details = getattr(exc, "details", None)
        details = dict(details) if isinstance(details, Mapping) else {}
        if "field" in details and "fields" not in details:
            details["fields"] = {str(details["field"]): [str(message)]}
        return code, str(message), details, {}
    return None


def _describe_drf(exc: exceptions.APIException) -> tuple[str, str, dict[str, Any], dict[str, str]] | None:
    code = next((c for cls, c in DRF_EXCEPTION_CODES if isinstance(exc, cls)), None)
    if code is None:
        default = getattr(exc, "default_code", "")
        code = default if default in STATUS_BY_CODE else None
    if code is None or status_for(code) >= 500:
        return None
    headers: dict[str, str] = {}
    details: dict[str, Any] = {}
    if isinstance(exc, exceptions.ValidationError):
        fields = field_errors(exc.detail)
        return code, _validation_message(fields), {"fields": fields}, headers
    if getattr(exc, "auth_header", None):
        headers["WWW-Authenticate"] = str(exc.auth_header)  # type: ignore[attr-defined]
    if isinstance(exc, exceptions.Throttled) and exc.wait is not None:
        retry_after = max(1, math.ceil(exc.wait))
        headers["Retry-After"] = str(retry_after)
        details["retry_after"] = retry_after
    message = _plain(exc.detail)
    if not isinstance(message, str):
        message = str(exc.default_detail)
    if isinstance(exc, exceptions.ParseError):
        message = f"Malformed request body: {message}"
    return code, message, details, headers


def field_errors(detail: Any) -> dict[str, Any]:
    """A serializer's errors as ``{field: [messages]}`` (nested serializers nest; errors about the body as a
    whole under ``non_field_errors``)."""
    plain = _plain(detail)
    if isinstance(plain, dict):
        return plain
    return {api_settings.NON_FIELD_ERRORS_KEY: plain if isinstance(plain, list) else [plain]}


def _plain(detail: Any) -> Any:
    if isinstance(detail, Mapping):
        return {str(key): _plain(value) for key, value in detail.items()}
    if isinstance(detail, list | tuple):
        return [_plain(item) for item in detail]
    return str(detail)


def _validation_message(fields: Mapping[str, Any]) -> str:
    named = [name for name in fields if name != api_settings.NON_FIELD_ERRORS_KEY]
    if named:
        return "Invalid field" + ("s" if len(named) > 1 else "") + ": " + ", ".join(named) + "."
    first = _first_message(fields)
    return first or "The request is invalid."


def _first_message(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    items = value.values() if isinstance(value, Mapping) else value if isinstance(value, list) else []
    for item in items:
        if (found := _first_message(item)) is not None:
            return found
    return None
