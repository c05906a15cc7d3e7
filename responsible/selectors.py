"""Reads of responsible gaming: a player's limits as ``GET /me/limits`` shows them, the table view's
``you.limits``, and his activity (play and cashier) over a period."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.db import connection

from . import account as acc
from .errors import iso_ms
from .policy import LONGEST_PERIOD_MS, Kind, deposit_usages, limit_key, loss_usages, split_key
from .store import deposit_facts, loss_facts, read_account


def _since(now_ms: int) -> datetime:
    return datetime.fromtimestamp((now_ms - LONGEST_PERIOD_MS) / 1000, tz=UTC)


def play_totals(user_id: int, *, start: datetime, end: datetime | None) -> dict[str, int]:
    """A player's chips by ledger entry kind in ``[start, end)``: stakes (reserved), wins (paid back by
    settlements), deposits, withdrawals, and the nets. One statement."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT t.kind, COALESCE(SUM(lp.amount), 0) FROM ledger_posting lp "
            "JOIN ledger_transaction t ON t.id = lp.transaction_id "
            "JOIN ledger_account a ON a.id = lp.account_id AND a.user_id = %s "
            "WHERE t.created_at >= %s AND (%s::timestamptz IS NULL OR t.created_at < %s) GROUP BY t.kind",
            [user_id, start, end, end],
        )
        sums = {kind: int(total) for kind, total in cursor.fetchall()}
    stakes = -sums.get("stake_reserve", 0)
    wins = sums.get("hand_settlement", 0)
    deposits = sums.get("deposit", 0)
    withdrawals = -sums.get("withdrawal", 0)
    return {
        "stakes": stakes,
        "wins": wins,
        "net": wins - stakes,
        "deposits": deposits,
        "withdrawals": withdrawals,
        "net_deposits": deposits - withdrawals,
    }


def limits_overview(user_id: int, *, now_ms: int) -> dict[str, Any]:
    """``GET /me/limits``: ``{limits: [{kind, period, amount, used, remaining}], requests: [...],
    reality_check_minutes, reality_check_due, exclusion}`` (``reality_check_due`` as in the table view)."""
    state = read_account(user_id)
    usage: dict[str, tuple[int, int]] = {}
    if any(k.startswith("loss:") for k in state.limits):
        settled, at_risk = loss_facts(user_id, since=_since(now_ms), now_ms=now_ms)
        for u in loss_usages(state.limits, settled, at_risk=at_risk, now_ms=now_ms):
            usage[limit_key(u.kind, u.period)] = (u.used, u.remaining)
    if any(k.startswith("deposit:") for k in state.limits):
        for u in deposit_usages(
            state.limits, deposit_facts(user_id, since=_since(now_ms), now_ms=now_ms), now_ms=now_ms
        ):
            usage[limit_key(u.kind, u.period)] = (u.used, u.remaining)
    if "session" in state.limits:
        used_min = acc.session_elapsed_ms(state, now_ms) // 60_000
        usage["session"] = (used_min, max(state.limits["session"] - used_min, 0))
    limits = []
    for key in sorted(state.limits):
        kind, period = split_key(key)
        amount = state.limits[key]
        used, remaining = usage.get(key, (None, None))
        limits.append(
            {
                "kind": str(kind),
                "period": None if period is None else str(period),
                "amount": amount,
                "used": used,
                "remaining": remaining,
            }
        )
    requests = [
        {
            "id": r.id,
            "kind": str(split_key(r.key)[0]),
            "period": None if split_key(r.key)[1] is None else str(split_key(r.key)[1]),
            "amount": r.amount,
            "confirmable_at": iso_ms(r.confirmable_ms),
            "expires_at": iso_ms(r.expires_ms),
        }
        for r in state.requests
        if r.expires_ms > now_ms
    ]
    exclusion = (
        {"kind": state.exclusion_kind, "until": iso_ms(state.excluded_until_ms)} if state.excluded(now_ms) else None
    )
    due: bool | dict[str, int] = False
    if acc.reality_check_due(state, now_ms):
        due = session_figures(user_id, state, now_ms)
    return {
        "limits": limits,
        "requests": requests,
        "reality_check_minutes": state.reality_check_minutes,
        "reality_check_due": due,
        "exclusion": exclusion,
    }


def table_limits(user_id: int, *, now_ms: int, account: acc.AccountState | None = None) -> dict[str, Any]:
    """The table view's ``you.limits``: ``{remaining_loss, remaining_session_s, reality_check_due}``
    (``reality_check_due`` is false, or ``{elapsed_s, wagered, net}`` when one is due). ``account``: the
    player's account state if the caller already has it (read in the command's transaction), else it is read."""
    state = read_account(user_id) if account is None else account
    remaining_loss = None
    if any(k.startswith("loss:") for k in state.limits):
        settled, at_risk = loss_facts(user_id, since=_since(now_ms), now_ms=now_ms)
        remaining_loss = min(u.remaining for u in loss_usages(state.limits, settled, at_risk=at_risk, now_ms=now_ms))
    remaining_session_s = None
    minutes = state.limits.get(str(Kind.SESSION))
    if minutes is not None:
        remaining_session_s = max(minutes * 60 - acc.session_elapsed_ms(state, now_ms) // 1000, 0)
    due: bool | dict[str, int] = False
    if acc.reality_check_due(state, now_ms):
        due = session_figures(user_id, state, now_ms)
    return {"remaining_loss": remaining_loss, "remaining_session_s": remaining_session_s, "reality_check_due": due}


def session_figures(user_id: int, state: acc.AccountState, now_ms: int) -> dict[str, int]:
    """What a reality check shows: the session's elapsed seconds, chips wagered and net so far."""
    if state.session_started_ms is None:
        return {"elapsed_s": 0, "wagered": 0, "net": 0}
    start = datetime.fromtimestamp(state.session_started_ms / 1000, tz=UTC)
    totals = play_totals(user_id, start=start, end=None)
    return {
        "elapsed_s": acc.session_elapsed_ms(state, now_ms) // 1000,
        "wagered": totals["stakes"],
        "net": totals["net"],
    }
