"""The game's Prometheus metrics: table commands (by type and outcome, their time and statements), timeouts and
the timeout sweeper (docs/operations.md). Served with every other metric by backoffice/metrics.py."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

from django.db import connection
from prometheus_client import Counter, Histogram

from kit import requestlog
from rules import DomainError
from tables.errors import TimeoutNotDue

COMMANDS = Counter(
    "casino_commands", "Table commands run through the pipeline, by command type and outcome", ["type", "outcome"]
)
COMMAND_SECONDS = Histogram(
    "casino_command_seconds",
    "Time of one table command in the pipeline (load, decide, append, ledger, read models)",
    ["type"],
    buckets=(0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.5, 5.0),
)
COMMAND_STATEMENTS = Histogram(
    "casino_command_statements",
    "SQL statements sent by one table command (Django's cursors)",
    ["type"],
    buckets=(1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 30, 50, 100),
)
TIMEOUTS_FIRED = Counter(
    "casino_timeouts_fired", "Waits that timed out (the table acted), by who fired them: timer or sweeper", ["via"]
)
SWEEPER_RUNS = Counter("casino_sweeper_runs", "Runs of the timeout sweeper (beat)")
SWEEPER_CATCHUPS = Counter(
    "casino_sweeper_catchups", "Overdue deadlines the sweeper fired: a timer message was lost, late or its worker died"
)


def observe_command[F: Callable[..., Any]](execute: F) -> F:
    """Decorate the pipeline's ``execute``: count the command by type and outcome, time it, count its
    statements, note the table and outcome on the request's log line, and give it the request's id."""

    @functools.wraps(execute)
    def observed(**kwargs: Any) -> Any:
        seen = {"type": "unknown"}
        build = kwargs["build"]

        def build_and_see(ctx: Any, state: Any) -> Any:
            command = build(ctx, state)
            seen["type"] = type(command).__name__
            return command

        kwargs["build"] = build_and_see
        if kwargs.get("request_id") is None:
            kwargs["request_id"] = requestlog.current_request_id()
        statements = 0

        def count(execute_sql: Any, sql: Any, params: Any, many: Any, context: Any) -> Any:
            nonlocal statements
            statements += 1
            return execute_sql(sql, params, many, context)

        outcome = "error"
        started = time.perf_counter()
        try:
            with connection.execute_wrapper(count):
                result = execute(**kwargs)
            outcome = "repeat" if result.repeated else ("ok" if result.events else "noop")
            return result
        except DomainError as exc:
            outcome = exc.code
            raise
        except Exception as exc:
            if isinstance(exc, TimeoutNotDue):  # a timer delivered before its deadline: retried, not a fault
                seen["type"], outcome = "Timeout", "not_due"
            raise
        finally:
            command_type = seen["type"]
            COMMANDS.labels(command_type, outcome).inc()
            COMMAND_SECONDS.labels(command_type).observe(time.perf_counter() - started)
            COMMAND_STATEMENTS.labels(command_type).observe(statements)
            requestlog.note(table=kwargs.get("table_id"), command=command_type, outcome=outcome)

    return observed  # type: ignore[return-value]
