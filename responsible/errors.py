"""Refusals of responsible gaming (their statuses are in kit/api_errors.py's one table)."""

from __future__ import annotations

from datetime import UTC, datetime

from rules import DomainError

from .policy import Usage


class LimitReached(DomainError):
    code = "limit_reached"


class RealityCheckDue(DomainError):
    code = "reality_check_due"


class Excluded(DomainError):
    code = "excluded"


def iso_ms(ms: int | None) -> str | None:
    return None if ms is None else datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat().replace("+00:00", "Z")


def limit_reached(usage: Usage, message: str | None = None) -> LimitReached:
    what = f"{usage.kind} limit" + (f" per {usage.period}" if usage.period else "")
    return LimitReached(message or f"This would pass your {what} ({usage.limit}).", usage.details())


def excluded(kind: str | None, until_ms: int | None) -> Excluded:
    what = "self-excluded" if kind == "self_exclusion" else "on a break"
    return Excluded(f"The account is {what} until {iso_ms(until_ms)}.", {"kind": kind, "until": iso_ms(until_ms)})
