"""One log line per request and per task: request id, user, table and outcome (docs/operations.md).

- ``RequestLogMiddleware`` gives every request an id (the client's ``X-Request-ID`` when it is a sane token,
  else a new one), returns it in the ``X-Request-ID`` response header, and logs one line on ``casino.request``
  when the response is ready: ``GET /api/v1/tables/5 200 12ms request_id=... user=alice table=5 outcome=ok``.
- Code deeper down adds what it learns with :func:`note` (the command pipeline notes the table and the
  command's outcome); the table commands record the request id in their events' metadata.
- Celery tasks log one line each on ``casino.task`` (``casino.celery`` connects the signals); the timeout
  sweeper only when it fired something, so an idle casino writes nothing.

With ``LOG_FORMAT=json`` each line is a JSON object with the same fields (``casino.settings``).
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Callable
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from django.http import HttpRequest, HttpResponse
from pythonjsonlogger.json import JsonFormatter

request_log = logging.getLogger("casino.request")
task_log = logging.getLogger("casino.task")

_context: ContextVar[dict[str, Any] | None] = ContextVar("casino_log_context", default=None)
_SANE_ID = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")
QUIET_PATHS = ("/healthz", "/readyz", "/metrics", "/static/")  # probes and scrapes: counted by the metrics, not logged


def current() -> dict[str, Any]:
    """The fields gathered so far for the request or task being handled (empty outside one)."""
    return _context.get() or {}


def current_request_id() -> str | None:
    value = current().get("request_id")
    return str(value) if value else None


def note(**fields: Any) -> None:
    """Add fields to the current request's or task's log line (ignored outside one)."""
    context = _context.get()
    if context is not None:
        context.update({k: v for k, v in fields.items() if v is not None})


def begin(**fields: Any) -> Any:
    """Start a request's or task's context; returns the token for :func:`end`."""
    return _context.set(dict(fields))


def end(token: Any) -> dict[str, Any]:
    fields = current()
    _context.reset(token)
    return fields


def line(fields: dict[str, Any]) -> str:
    """``key=value`` pairs in a stable order (the JSON format carries them as fields instead)."""
    order = ("request_id", "task_id", "user", "table", "command", "outcome", "status", "ms")
    keys = [k for k in order if k in fields] + sorted(k for k in fields if k not in order)
    return " ".join(f"{k}={fields[k]}" for k in keys)


class RequestLogMiddleware:
    """Request id in, one log line out (see the module docstring)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        given = request.headers.get("X-Request-ID", "")
        request_id = given if _SANE_ID.match(given) else uuid.uuid4().hex
        request.request_id = request_id  # type: ignore[attr-defined]
        token = begin(request_id=request_id)
        started = time.perf_counter()
        try:
            response = self.get_response(request)
        except Exception:
            fields = end(token)
            fields.update(status=500, ms=round((time.perf_counter() - started) * 1000), outcome="error")
            request_log.error("%s %s 500 %s", request.method, request.path, line(fields), extra=fields)
            raise
        fields = end(token)
        user = getattr(request, "user", None)
        if user is not None and getattr(user, "is_authenticated", False):
            fields.setdefault("user", user.get_username())
        match = getattr(request, "resolver_match", None)
        if match is not None and "table" not in fields and match.kwargs.get("table_id") is not None:
            fields["table"] = match.kwargs["table_id"]
        fields["status"] = response.status_code
        fields["ms"] = round((time.perf_counter() - started) * 1000)
        fields.setdefault("outcome", "ok" if response.status_code < 400 else _error_code(response))
        response["X-Request-ID"] = request_id
        if not request.path.startswith(QUIET_PATHS):
            warn = response.status_code >= 500 or fields.pop("suspicious", False)
            level = logging.WARNING if warn else logging.INFO
            request_log.log(
                level,
                "%s %s %s %s",
                request.method,
                request.path,
                response.status_code,
                line(fields),
                extra=fields,
            )
        return response


def _error_code(response: HttpResponse) -> str:
    """The API error code of a JSON error body (API.md), else the status class."""
    data = getattr(response, "data", None)
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict) and isinstance(error.get("code"), str):
            return str(error["code"])
    return "client_error" if response.status_code < 500 else "server_error"


class RoutineCeleryLines(logging.Filter):
    """Drops Celery's routine lines that would repeat every few seconds on an idle casino: beat's "Sending due
    task" and the worker's "Discarding revoked task" (an expired sweep under load). Start-up lines stay."""

    ROUTINE = ("Scheduler: Sending due task", "Discarding revoked task", "Discarding expired task")

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(self.ROUTINE)


class SuspiciousRequest(logging.Filter):
    """Django logs a refused admin lookup (``?password__regex=``), a bad ``Host`` and its other
    ``SuspiciousOperation``s at ERROR with a traceback. Within a request, the record is dropped and the request's
    own line says it at WARNING (``outcome=DisallowedModelAdminLookup``); elsewhere it becomes one WARNING line
    without the traceback. Either way one line, and an alert on ERROR lines is not woken by a probe. A filter of
    the console handler (``LOGGING``)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not record.name.startswith("django.security."):
            return True
        kind = record.name.rsplit(".", 1)[-1]
        context = _context.get()
        if context is not None:
            context.update(outcome=kind, suspicious=True, reason=record.getMessage()[:200])
            return False
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        return True


def iso_utc(created: float) -> str:
    """``2026-12-01T21:55:43.990Z``: ISO 8601, UTC, milliseconds."""
    moment = datetime.fromtimestamp(created, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


class UTCFormatter(logging.Formatter):
    """The text format's time in ISO 8601 UTC."""

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        return iso_utc(record.created)


class JsonUTCFormatter(JsonFormatter):
    """python-json-logger's formatter with ``time`` in ISO 8601 UTC (its default is the local
    ``2026-12-01 21:55:43,990``, no zone)."""

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        return iso_utc(record.created)
