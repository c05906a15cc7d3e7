"""A player's responsible-gaming account as a small Decider: its state, the events that change it (kept in the
player's own account stream) and ``evolve``. Standard library only; times are epoch milliseconds.

``replay(events)`` rebuilds the state any time; the stored state is a cache of it (checked by the tests).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from .policy import DAY_MS, REALITY_CHECK_DEFAULT_MINUTES


@dataclass(frozen=True, slots=True, kw_only=True)
class Request:
    """A pending raise (or removal, ``amount`` None) of a limit."""

    id: int
    key: str
    amount: int | None
    requested_ms: int
    confirmable_ms: int
    expires_ms: int


@dataclass(frozen=True, slots=True, kw_only=True)
class AccountState:
    limits: Mapping[str, int] = field(default_factory=dict)
    requests: tuple[Request, ...] = ()
    next_request_id: int = 1
    reality_check_minutes: int = REALITY_CHECK_DEFAULT_MINUTES
    exclusion_kind: str | None = None
    excluded_until_ms: int | None = None
    # the session (API.md v1.3): from the first stake after signing in to the sign-out or 30 minutes without a stake
    session_started_ms: int | None = None  # None: no session
    session_active_ms: int | None = None  # its last stake recorded (at most one record a minute: ACTIVITY_STEP_MS)
    reality_due_ms: int | None = None  # when the next reality check falls due in this session
    session_blocked_until_ms: int | None = None  # the session limit was reached: no new seat before this

    def excluded(self, now_ms: int) -> bool:
        return self.excluded_until_ms is not None and now_ms < self.excluded_until_ms

    def request(self, request_id: int) -> Request | None:
        return next((r for r in self.requests if r.id == request_id), None)


# --- events (type name -> payload); every one carries ``at_ms`` ------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class AccountEvent:
    type: str
    at_ms: int
    data: Mapping[str, Any] = field(default_factory=dict)


def evolve(state: AccountState, event: AccountEvent) -> AccountState:
    """The state after ``event``: holds no rules, only what the event says."""
    d = event.data
    match event.type:
        case "limit_set":
            limits = dict(state.limits)
            if d["amount"] is None:
                limits.pop(d["key"], None)
            else:
                limits[d["key"]] = d["amount"]
            requests = tuple(r for r in state.requests if r.key != d["key"])  # a new limit replaces any request
            return replace(state, limits=limits, requests=requests)
        case "limit_raise_requested":
            request = Request(**d["request"])
            requests = (*(r for r in state.requests if r.key != request.key), request)
            return replace(state, requests=requests, next_request_id=request.id + 1)
        case "limit_raise_confirmed" | "limit_raise_lapsed":
            pending = state.request(d["id"])
            requests = tuple(r for r in state.requests if r.id != d["id"])
            limits = dict(state.limits)
            if event.type == "limit_raise_confirmed" and pending is not None:
                if pending.amount is None:
                    limits.pop(pending.key, None)
                else:
                    limits[pending.key] = pending.amount
            return replace(state, requests=requests, limits=limits)
        case "reality_check_interval_set":
            due = state.reality_due_ms
            if due is not None:  # in a session: a shorter interval brings the next check nearer, never further
                due = min(due, event.at_ms + d["minutes"] * 60_000)
            return replace(state, reality_check_minutes=d["minutes"], reality_due_ms=due)
        case "reality_check_shown":
            return state
        case "reality_check_acknowledged":
            return replace(state, reality_due_ms=event.at_ms + state.reality_check_minutes * 60_000)
        case "session_started":
            return replace(
                state,
                session_started_ms=event.at_ms,
                session_active_ms=event.at_ms,
                reality_due_ms=event.at_ms + state.reality_check_minutes * 60_000,
            )
        case "session_active":
            return replace(state, session_active_ms=event.at_ms)
        case "session_ended":
            return replace(state, session_started_ms=None, session_active_ms=None, reality_due_ms=None)
        case "session_limit_reached":
            return replace(state, session_blocked_until_ms=d["until_ms"])
        case "exclusion_started":
            return replace(state, exclusion_kind=d["kind"], excluded_until_ms=d["until_ms"])
        case "exclusion_ended":
            return replace(state, exclusion_kind=None, excluded_until_ms=None)
    raise ValueError(f"unknown account event {event.type!r}")


def replay(events: Iterable[AccountEvent], initial: AccountState | None = None) -> AccountState:
    """The state the events lead to."""
    return functools.reduce(evolve, events, initial or AccountState())


def state_to_json(state: AccountState) -> dict[str, Any]:
    data = asdict(state)
    data["limits"] = dict(state.limits)
    return data


def state_from_json(data: Mapping[str, Any]) -> AccountState:
    if not data:
        return AccountState()
    values = dict(data)
    values["requests"] = tuple(Request(**r) for r in values.get("requests", ()))
    values["limits"] = dict(values.get("limits", {}))
    return AccountState(**values)


# --- session arithmetic --------------------------------------------------------------------------------------------


#: a session ends after this long without a stake (API.md v1.3)
SESSION_IDLE_MS = 30 * 60_000
#: a stake in a session is recorded (``session_active``) when the last record is at least this old: the idle end is
#: known to this precision, and a player's stakes write no account event more often than this
ACTIVITY_STEP_MS = 60_000


def session_live(state: AccountState, now_ms: int) -> bool:
    """A session is running: started (by a stake after signing in), not ended by a sign-out, and its last stake
    less than :data:`SESSION_IDLE_MS` ago. Leaving a table or sitting at another changes nothing."""
    if state.session_started_ms is None:
        return False
    last = state.session_active_ms if state.session_active_ms is not None else state.session_started_ms
    return now_ms - last < SESSION_IDLE_MS


def session_stake_events(state: AccountState, now_ms: int) -> list[AccountEvent]:
    """What a stake at ``now_ms`` records: a new session (the last one ended, if it had not), a record of activity
    when the last one is :data:`ACTIVITY_STEP_MS` old, or nothing."""
    if not session_live(state, now_ms):
        ended = [AccountEvent(type="session_ended", at_ms=now_ms)] if state.session_started_ms is not None else []
        return [*ended, AccountEvent(type="session_started", at_ms=now_ms)]
    last = state.session_active_ms if state.session_active_ms is not None else state.session_started_ms
    assert last is not None
    return [AccountEvent(type="session_active", at_ms=now_ms)] if now_ms - last >= ACTIVITY_STEP_MS else []


def session_elapsed_ms(state: AccountState, now_ms: int) -> int:
    if not session_live(state, now_ms):
        return 0
    assert state.session_started_ms is not None
    return max(now_ms - state.session_started_ms, 0)


def session_limit_reached(state: AccountState, now_ms: int) -> bool:
    """The session limit is used up (the hand in play finishes; no new stake or seat)."""
    minutes = state.limits.get("session")
    if minutes is None or not session_live(state, now_ms):
        return False
    return session_elapsed_ms(state, now_ms) >= minutes * 60_000


def session_blocked(state: AccountState, now_ms: int) -> bool:
    """A new session may not start yet: the last one reached the session limit less than a day ago."""
    return state.session_blocked_until_ms is not None and now_ms < state.session_blocked_until_ms


def session_block_until(state: AccountState) -> int:
    """When a session that reached its limit lets a new one start: a day after that session began."""
    assert state.session_started_ms is not None
    return state.session_started_ms + DAY_MS


def reality_check_due(state: AccountState, now_ms: int) -> bool:
    return state.reality_due_ms is not None and now_ms >= state.reality_due_ms and session_live(state, now_ms)
