"""Responsible-gaming services (HackSoft style): each locks the player's account row, decides, appends the
events to his account stream and commits, in one transaction. ``now_ms`` is injectable (tests play time
forward); by default it is this server's clock, the same one a table command's context uses.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction

from kit.tokens import revoke_all_tokens
from ledger import services as ledger
from ledger.models import Transaction
from rules import DomainError

from . import account as acc
from .clock import now_ms
from .errors import excluded, limit_reached
from .models import GamingAccount
from .policy import (
    BREAK_DAYS,
    DAY_MS,
    LONGEST_PERIOD_MS,
    REALITY_CHECK_MINUTES,
    SELF_EXCLUSION_DAYS,
    binding,
    deposit_usages,
    is_raise,
    limit_key,
    valid_limit,
)
from .selectors import session_figures
from .store import Loaded, append, deposit_facts, lock_account, read_account

log = logging.getLogger(__name__)


class RequestNotFound(DomainError):
    code = "not_found"


class NotYetConfirmable(DomainError):
    code = "illegal_action"


class InvalidLimit(DomainError):
    code = "invalid_request"


def _cooling_off_ms() -> int:
    return int(settings.RG_COOLING_OFF_HOURS) * 3600 * 1000


def _request_ttl_ms() -> int:
    return int(settings.RG_REQUEST_EXPIRY_DAYS) * DAY_MS


def _since(now: int) -> datetime:
    return datetime.fromtimestamp((now - LONGEST_PERIOD_MS) / 1000, tz=UTC)


def _uid(user: AbstractBaseUser | int) -> int:
    return user if isinstance(user, int) else int(user.pk)


def _lapse(loaded: Loaded, now: int) -> None:
    """Record the lapse of every request past its expiry."""
    lapsed = [r for r in loaded.state.requests if r.expires_ms <= now]
    append(loaded, [acc.AccountEvent(type="limit_raise_lapsed", at_ms=now, data={"id": r.id}) for r in lapsed])


@transaction.atomic
def limit_set(
    *, user: AbstractBaseUser | int, kind: str, period: str | None, amount: int | None, now: int | None = None
) -> dict[str, Any]:
    """Set a limit (``amount`` None removes it). Lowering one, or setting one where there was none, takes effect
    at once; raising or removing one creates a request confirmable after the cooling-off (a setting, 24 hours)
    and lapsing unconfirmed after 7 days; until then the old limit holds. ``kind`` ``reality_check`` sets the
    reality-check interval in minutes (15-120), at once. Returns ``{"applied": bool, "request": {...}|None}``."""
    now = now_ms() if now is None else now
    loaded = lock_account(_uid(user))
    _lapse(loaded, now)
    if kind == "reality_check":
        low, high = REALITY_CHECK_MINUTES
        if period is not None or amount is None or not low <= amount <= high:
            raise InvalidLimit(f"reality_check is a number of minutes from {low} to {high}", {"field": "amount"})
        append(loaded, [acc.AccountEvent(type="reality_check_interval_set", at_ms=now, data={"minutes": amount})])
        return {"applied": True, "request": None}
    if not valid_limit(kind, period):
        raise InvalidLimit(
            "kind is deposit or loss with a period (day, week, month), or stake or session without one",
            {"field": "period" if kind in ("deposit", "loss", "stake", "session") else "kind"},
        )
    key = limit_key(kind, period)
    current = loaded.state.limits.get(key)
    if not is_raise(current, amount):
        event = acc.AccountEvent(
            type="limit_set", at_ms=now, data={"key": key, "amount": amount, "previous": current, "by": "player"}
        )
        append(loaded, [event], actor_id=loaded.user_id)
        return {"applied": True, "request": None}
    request = acc.Request(
        id=loaded.state.next_request_id,
        key=key,
        amount=amount,
        requested_ms=now,
        confirmable_ms=now + _cooling_off_ms(),
        expires_ms=now + _request_ttl_ms(),
    )
    event = acc.AccountEvent(
        type="limit_raise_requested", at_ms=now, data={"request": _request_json(request), "previous": current}
    )
    append(loaded, [event], actor_id=loaded.user_id)
    return {"applied": False, "request": request}


def _request_json(request: acc.Request) -> dict[str, Any]:
    return {
        "id": request.id,
        "key": request.key,
        "amount": request.amount,
        "requested_ms": request.requested_ms,
        "confirmable_ms": request.confirmable_ms,
        "expires_ms": request.expires_ms,
    }


@transaction.atomic
def limit_confirm(*, user: AbstractBaseUser | int, request_id: int, now: int | None = None) -> None:
    """Confirm a raise after its cooling-off: refused (409 ``illegal_action``, ``details.confirmable_at``)
    before it; an unknown or lapsed request is 404."""
    now = now_ms() if now is None else now
    loaded = lock_account(_uid(user))
    request = loaded.state.request(request_id)
    if request is None or request.expires_ms <= now:
        raise RequestNotFound(f"there is no pending limit request {request_id}", {"request": request_id})
    if now < request.confirmable_ms:
        raise NotYetConfirmable(
            "this raise can be confirmed only after its cooling-off",
            {"confirmable_at": _iso(request.confirmable_ms), "request": request_id},
        )
    append(
        loaded,
        [acc.AccountEvent(type="limit_raise_confirmed", at_ms=now, data={"id": request_id})],
        actor_id=loaded.user_id,
    )


@transaction.atomic
def staff_lower_limit(
    *,
    operator: AbstractBaseUser,
    user: AbstractBaseUser | int,
    kind: str,
    period: str | None,
    amount: int,
    reason: str,
    now: int | None = None,
) -> None:
    """Staff lower (or set a first) limit of a player, with a reason (audited in his stream). Never a raise."""
    now = now_ms() if now is None else now
    if not reason.strip():
        raise InvalidLimit("staff give a reason for every change", {"field": "reason"})
    if not valid_limit(kind, period) or amount is None or amount < 0:
        raise InvalidLimit("not a limit", {"field": "kind"})
    loaded = lock_account(_uid(user))
    key = limit_key(kind, period)
    current = loaded.state.limits.get(key)
    if is_raise(current, amount) or current == amount:
        raise InvalidLimit("staff can only lower a limit, never raise or remove one", {"field": "amount"})
    event = acc.AccountEvent(
        type="limit_set", at_ms=now, data={"key": key, "amount": amount, "previous": current, "by": "staff"}
    )
    append(loaded, [event], actor_id=int(operator.pk), reason=reason.strip())


@transaction.atomic
def reality_check_acknowledge(*, user: AbstractBaseUser | int, now: int | None = None) -> dict[str, Any]:
    """Acknowledge a due reality check: it is recorded as shown (with what it showed) and acknowledged, and the
    next one falls due after another interval. Nothing due: nothing recorded."""
    now = now_ms() if now is None else now
    loaded = lock_account(_uid(user))
    state = loaded.state
    if not acc.reality_check_due(state, now):
        return {"acknowledged": False}
    shown = session_figures(loaded.user_id, state, now)
    append(
        loaded,
        [
            acc.AccountEvent(type="reality_check_shown", at_ms=state.reality_due_ms or now, data=shown),
            acc.AccountEvent(type="reality_check_acknowledged", at_ms=now),
        ],
        actor_id=loaded.user_id,
    )
    return {"acknowledged": True, **shown}


def refuse_if_excluded(user: AbstractBaseUser, *, now: int | None = None) -> None:
    """Sign-in during a break or a self-exclusion: 403 ``excluded`` with ``details.until``."""
    now = now_ms() if now is None else now
    state = read_account(_uid(user))
    if state.excluded(now):
        raise excluded(state.exclusion_kind, state.excluded_until_ms)


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat().replace("+00:00", "Z")


def exclusion_start(*, user: AbstractBaseUser, kind: str, days: int, now: int | None = None) -> dict[str, Any]:
    """A break (1, 7, 30, 60 or 90 days) or a self-exclusion (180, 365 or 1825 days), at once: every token
    revoked (live streams opened with them close), seats released (at once between hands, else after the hand
    in play), sign-in refused until the end. An exclusion already running is only ever lengthened."""
    now = now_ms() if now is None else now
    allowed = BREAK_DAYS if kind == "break" else SELF_EXCLUSION_DAYS if kind == "self_exclusion" else None
    if allowed is None:
        raise InvalidLimit("kind is break or self_exclusion", {"field": "kind"})
    if days not in allowed:
        raise InvalidLimit(f"days is one of {', '.join(map(str, allowed))}", {"field": "days"})
    with transaction.atomic():
        loaded = lock_account(_uid(user))
        until = now + days * DAY_MS
        current = loaded.state.excluded_until_ms if loaded.state.excluded(now) else None
        if current is not None and current >= until:
            until, kind = current, loaded.state.exclusion_kind or kind  # never shortened
        else:
            append(
                loaded,
                [
                    acc.AccountEvent(
                        type="exclusion_started", at_ms=now, data={"kind": kind, "days": days, "until_ms": until}
                    )
                ],
                actor_id=loaded.user_id,
            )
        revoke_all_tokens(user)
    return {"kind": kind, "until": _iso(until)}


def deposit(
    *,
    user: AbstractBaseUser,
    amount: int,
    reference: str,
    operator: AbstractBaseUser,
    cause: str,
    now: int | None = None,
) -> Transaction:
    """A cashier deposit that passes the player's deposit limits (409 ``limit_reached``), in the transaction
    that locks his account: two deposits at once cannot together pass a limit. The clock is read under the lock
    (issue #43): read before it, a deposit committed while this one waited would have looked like the future."""
    with transaction.atomic():
        loaded = lock_account(_uid(user))
        now = now_ms() if now is None else now
        if any(k.startswith("deposit:") for k in loaded.state.limits):
            usages = deposit_usages(
                loaded.state.limits, deposit_facts(loaded.user_id, since=_since(now), now_ms=now), now_ms=now
            )
            over = binding(u for u in usages if u.used + amount > u.limit)
            if over is not None:
                raise limit_reached(over, f"A deposit of {amount} passes the player's {over.period}ly deposit limit.")
        return ledger.deposit(user=user, amount=amount, reference=reference, operator=operator, cause=cause)


def record_session_block(loaded: Loaded, now_ms: int) -> None:
    """The session limit used up: no new session before a day after this one began (recorded once, when the
    player leaves a table or the sweep releases his seats)."""
    state = loaded.state
    if acc.session_limit_reached(state, now_ms) and not acc.session_blocked(state, now_ms):
        until = acc.session_block_until(state)
        append(loaded, [acc.AccountEvent(type="session_limit_reached", at_ms=now_ms, data={"until_ms": until})])


def session_end(*, user: AbstractBaseUser | int, now: int | None = None) -> None:
    """The player signed out: his session, if one is running, ends (API.md v1.3); the next stake starts one."""
    with transaction.atomic():
        loaded = lock_account(_uid(user))
        now = now_ms() if now is None else now
        if loaded.state.session_started_ms is not None:
            record_session_block(loaded, now)
            append(loaded, [acc.AccountEvent(type="session_ended", at_ms=now)])


def sweep(*, seated: Collection[int], now: int | None = None) -> tuple[dict[str, int], list[int]]:
    """The periodic duties (beat): lapse expired requests and end exclusions that are over. Returns the counts
    (``lapsed``, ``ended``) and, of the ``seated`` players, those whose seats must be released: excluded, or their
    session limit used up (the game releases them: tables/seat_release.py)."""
    now = now_ms() if now is None else now
    counts = {"lapsed": 0, "ended": 0}
    release: list[int] = []
    candidates = set(GamingAccount.objects.filter(state__requests__0__isnull=False).values_list("user_id", flat=True))
    candidates |= set(GamingAccount.objects.filter(excluded_until__isnull=False).values_list("user_id", flat=True))
    candidates |= set(
        GamingAccount.objects.filter(user_id__in=seated, has_limits=True).values_list("user_id", flat=True)
    )
    for user_id in sorted(candidates):
        with transaction.atomic():
            loaded = lock_account(user_id)
            before = len(loaded.state.requests)
            _lapse(loaded, now)
            counts["lapsed"] += before - len(loaded.state.requests)
            state = loaded.state
            if state.excluded_until_ms is not None and not state.excluded(now):
                append(loaded, [acc.AccountEvent(type="exclusion_ended", at_ms=now)])
                counts["ended"] += 1
            if user_id in seated and (state.excluded(now) or acc.session_limit_reached(state, now)):
                record_session_block(loaded, now)
                release.append(user_id)
    return counts, release
