"""The record of what happened: the outage windows, the faults, every request and its attempts, the
violations; shared by the bots, the monitors and the fault injector, read by the checks."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from soak.log import say
from soak.timing import SLACK_S


@dataclass
class Window:
    """A span in which a service was (being) down: 503s are allowed in it (plus slack after ``end``)."""

    service: str  # "database" or "redis" (the ones /healthz reports), or "timers" (worker/beat)
    kind: str
    start: float
    down_from: float | None = None  # confirmed down (stopped) ...
    down_to: float | None = None  # ... until the restart began
    end: float | None = None  # back (ready)


@dataclass
class Fault:
    """One injected fault. ``back`` is when the fault was over (the service started again, the kill done, the
    connection dropped); ``ready_s`` how long the service then took to be ready (/healthz 200, the worker's
    "ready", gunicorn's replacement worker), ``action_s`` until an action sent after ``back`` was accepted."""

    kind: str
    at: float
    detail: str = ""
    down_s: float = 0.0
    back: float = 0.0
    ready_s: float | None = None
    action_s: float | None = None


@dataclass
class Attempt:
    sent: float
    received: float
    status: int | None  # None: no answer (connection dropped, reset, timed out)
    body: Any = None
    replayed: bool = False
    retry_after: str | None = None
    error: str = ""  # why there was no answer


@dataclass
class Request:
    bot: str
    user_id: int
    table_id: int
    method: str
    path: str
    body: dict[str, Any] | None
    key: str | None
    attempts: list[Attempt] = field(default_factory=list)
    repeats: list[Attempt] = field(default_factory=list)  # deliberate re-sends after the answer

    @property
    def answer(self) -> Attempt | None:
        return next((a for a in self.attempts if is_final(a)), None)


def is_final(attempt: Attempt) -> bool:
    return attempt.status is not None and attempt.status < 500 and attempt.status != 429


class Record:
    """Everything the soak saw, shared by the threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.windows: list[Window] = []
        self.faults: list[Fault] = []
        self.requests: list[Request] = []
        self.server_errors: list[tuple[str, Attempt]] = []
        self.health: list[Attempt] = []
        self.violations: list[str] = []
        self.timer_lateness: list[float] = []
        self.exits: list[tuple[str, str, float]] = []  # processes that exited by themselves: name, why, back after
        self.timers_up_since = 0.0
        self.started = time.monotonic()

    def violation(self, message: str) -> None:
        with self.lock:
            self.violations.append(message)
        say(f"VIOLATION: {message}")

    def open_window(self, service: str, kind: str) -> Window:
        window = Window(service, kind, time.monotonic())
        with self.lock:
            self.windows.append(window)
        return window

    def covered(self, services: set[str], start: float, end: float) -> bool:
        """Whether [start, end] meets an outage window of one of ``services`` (its end extended by the slack)."""
        now = time.monotonic()
        for w in self.windows:
            if w.service in services and start <= (w.end if w.end is not None else now) + SLACK_S and end >= w.start:
                return True
        return False

    def timer_services_down(self) -> bool:
        return any(w.end is None and w.service in ("database", "redis", "timers") for w in self.windows)

