"""Count what a piece of code sends to PostgreSQL, at the wire: statements and round trips.

Django's ``CaptureQueriesContext`` sees the statements run through its cursors, but not the ``BEGIN`` and
``COMMIT`` psycopg sends around a transaction, nor anything sent on the psycopg connection directly. This
reads libpq's own protocol trace of the connection instead, so nothing can hide from it:

- a **statement** is a simple ``Query`` message or an extended-protocol ``Execute``;
- a **round trip** is a ``Query`` or a ``Sync`` (the client waits for the server's answer to each), so
  statements sent together in psycopg's pipeline mode count once.

Used by the statement-count tests (the regression guard of docs/performance.md) and ``bench/api.py
--profile``. The code counted must not send several statements in one query string (none of ours does; the
count would be one too few per extra statement).
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import psycopg

_MESSAGE = re.compile(r"^F\t\d+\t(\w+)\t?(.*)$", re.DOTALL)
_SPLIT = re.compile(r"\n(?=[FB]\t\d+\t)")


@dataclass
class Sent:
    """What the client sent while counting: each statement's SQL (first 200 characters) and the round trips."""

    statements: list[str] = field(default_factory=list)
    round_trips: int = 0

    def __len__(self) -> int:
        return len(self.statements)

    def render(self) -> str:
        return "\n".join(f"  {i:>2}. {sql}" for i, sql in enumerate(self.statements, start=1))


def _parse(trace: str, sent: Sent) -> None:
    parsed: dict[str, str] = {}  # prepared statement name -> its SQL
    last_parse = ""
    for message in _SPLIT.split(trace):
        match = _MESSAGE.match(message)
        if match is None:
            continue
        kind, rest = match.groups()
        if kind == "Query":
            sent.statements.append(" ".join(rest.strip().strip('"').split())[:200])
            sent.round_trips += 1
        elif kind == "Parse":
            name, _, sql = rest.partition(" ")
            last_parse = " ".join(sql.rsplit(" ", 1)[0].strip().strip('"').split())
            parsed[name] = last_parse
        elif kind == "Bind":
            names = rest.split(" ")
            last_parse = parsed.get(names[1] if len(names) > 1 else '""', last_parse)
        elif kind == "Execute":
            sent.statements.append(last_parse[:200])
        elif kind == "Sync":
            sent.round_trips += 1


@contextmanager
def count_sent(connection: Any) -> Iterator[Sent]:
    """Count what ``connection`` (a Django connection or a psycopg one) sends inside the block."""
    raw: psycopg.Connection[Any]
    if isinstance(connection, psycopg.Connection):
        raw = connection
    else:
        connection.ensure_connection()
        raw = connection.connection
    sent = Sent()
    with tempfile.TemporaryFile(mode="w+") as trace:
        raw.pgconn.trace(trace.fileno())
        raw.pgconn.set_trace_flags(psycopg.pq.Trace.SUPPRESS_TIMESTAMPS | psycopg.pq.Trace.REGRESS_MODE)
        try:
            yield sent
        finally:
            raw.pgconn.untrace()
            trace.seek(0)
            _parse(trace.read(), sent)
