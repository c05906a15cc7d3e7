"""The pure rules of responsible gaming: periods, how much of a loss or deposit limit is used, what may be
staked. Standard library only; time comes in as data (epoch milliseconds), never from a clock.

Loss is net and counted when a hand settles: a hand's net (what it paid back minus what was staked) lands at
its settlement time. A stake may lose at most its reserve, and it settles *later*, when the window may have
moved on and dropped a win that once offset a loss. So a loss limit is charged with the largest net loss of
any *recent stretch* of the window (the maximum suffix sum: a win only offsets the losses that came before it
and will leave the window after them), plus every chip still at risk in unsettled hands, at every table. Then
no window of the period, ever, holds a net loss above the limit that was in force at its last stake (the
property test in tests/responsible/test_policy_properties.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

DAY_MS = 24 * 3600 * 1000


class Kind(StrEnum):
    DEPOSIT = "deposit"
    LOSS = "loss"
    STAKE = "stake"
    SESSION = "session"


class Period(StrEnum):
    DAY = "day"
    WEEK = "week"
    MONTH = "month"


PERIOD_MS: dict[Period, int] = {Period.DAY: DAY_MS, Period.WEEK: 7 * DAY_MS, Period.MONTH: 30 * DAY_MS}
LONGEST_PERIOD_MS = max(PERIOD_MS.values())
PERIODIC_KINDS = frozenset({Kind.DEPOSIT, Kind.LOSS})

#: Breaks and self-exclusions a player may choose, in days (API.md).
BREAK_DAYS = (1, 7, 30, 60, 90)
SELF_EXCLUSION_DAYS = (180, 365, 1825)
REALITY_CHECK_MINUTES = (15, 120)  # inclusive bounds
REALITY_CHECK_DEFAULT_MINUTES = 60


def limit_key(kind: Kind | str, period: Period | str | None) -> str:
    """The key of a limit: ``"loss:day"``, ``"deposit:month"``, ``"stake"``, ``"session"``."""
    return f"{kind}:{period}" if period else str(kind)


def split_key(key: str) -> tuple[Kind, Period | None]:
    kind, _, period = key.partition(":")
    return Kind(kind), Period(period) if period else None


def valid_limit(kind: str, period: str | None) -> bool:
    """Whether ``(kind, period)`` names a limit: deposit and loss need a period, stake and session none."""
    if kind not in Kind.__members__.values():
        return False
    if Kind(kind) in PERIODIC_KINDS:
        return period in Period.__members__.values()
    return period is None


def window_net_loss(settled: Iterable[tuple[int, int]], *, now_ms: int, period_ms: int) -> int:
    """The net loss of the window of ``period_ms`` that ends at ``now_ms``, from settled hands ``(at_ms, net)``
    (net: chips the player came out ahead): the losses minus the winnings, negative when he is ahead."""
    return -sum(net for at, net in settled if now_ms - period_ms < at <= now_ms)


def window_loss(settled: Iterable[tuple[int, int]], *, now_ms: int, period_ms: int) -> int:
    """The loss charged against a limit of ``period_ms`` at ``now_ms`` (API.md v1.3): the window's net loss, never
    below zero."""
    return max(window_net_loss(settled, now_ms=now_ms, period_ms=period_ms), 0)


@dataclass(frozen=True, slots=True)
class Usage:
    """How much of one limit is used: ``used`` (charged so far, at risk included) and what remains."""

    kind: Kind
    period: Period | None
    limit: int
    used: int

    @property
    def remaining(self) -> int:
        return max(self.limit - self.used, 0)

    def details(self) -> dict[str, object]:
        """The ``details`` of a ``limit_reached`` error (API.md)."""
        return {
            "kind": str(self.kind),
            "period": None if self.period is None else str(self.period),
            "limit": self.limit,
            "used": self.used,
            "remaining": self.remaining,
        }


def loss_usages(
    limits: Mapping[str, int], settled: Iterable[tuple[int, int]], *, at_risk: int, now_ms: int
) -> list[Usage]:
    """Each loss limit's usage: the window's net loss (never below zero) plus ``at_risk`` (reserves in unsettled
    hands), and nothing else (API.md v1.3)."""
    rows = list(settled)
    usages = []
    for period in Period:
        limit = limits.get(limit_key(Kind.LOSS, period))
        if limit is not None:
            used = window_loss(rows, now_ms=now_ms, period_ms=PERIOD_MS[period]) + at_risk
            usages.append(Usage(Kind.LOSS, period, limit, used))
    return usages


@dataclass(frozen=True, slots=True)
class LossRoom:
    """What a table command needs to follow a player's loss room through its own settlements (``Context.loss_room``
    and ``Context.loss_ceiling``): ``headroom``, the lowest of each loss limit minus its window's net loss *not*
    clamped at zero, minus the chips at risk; and ``ceiling``, the lowest loss limit minus the chips at risk (the
    room when no window is at a net loss). The room now is the smaller of the two; a settlement in the command
    gives back to ``headroom`` all it pays the player (his reserve and any winnings) and to ``ceiling`` only his
    released reserve."""

    headroom: int
    ceiling: int

    @property
    def room(self) -> int:
        return min(self.headroom, self.ceiling)


def loss_room(
    limits: Mapping[str, int], settled: Iterable[tuple[int, int]], *, at_risk: int, now_ms: int
) -> LossRoom | None:
    """The player's :class:`LossRoom` under his loss limits, or None when he has none."""
    rows = list(settled)
    windows = [
        (limit, window_net_loss(rows, now_ms=now_ms, period_ms=PERIOD_MS[period]))
        for period in Period
        if (limit := limits.get(limit_key(Kind.LOSS, period))) is not None
    ]
    if not windows:
        return None
    return LossRoom(
        headroom=min(limit - net for limit, net in windows) - at_risk,
        ceiling=min(limit for limit, _ in windows) - at_risk,
    )


def deposit_usages(limits: Mapping[str, int], deposits: Iterable[tuple[int, int]], *, now_ms: int) -> list[Usage]:
    """Each deposit limit's usage: the deposits ``(at_ms, amount)`` in its rolling window."""
    rows = list(deposits)
    usages = []
    for period in Period:
        limit = limits.get(limit_key(Kind.DEPOSIT, period))
        if limit is not None:
            used = sum(amount for at, amount in rows if now_ms - PERIOD_MS[period] < at <= now_ms)
            usages.append(Usage(Kind.DEPOSIT, period, limit, used))
    return usages


def stake_refusal(limits: Mapping[str, int], amount: int) -> Usage | None:
    """The stake limit a stake of ``amount`` (what one bet, raise or split adds) would pass, or None."""
    most = limits.get(str(Kind.STAKE))
    if most is None or amount <= most:
        return None
    return Usage(Kind.STAKE, None, most, amount)


def binding(usages: Iterable[Usage]) -> Usage | None:
    """The usage that leaves the least (the lowest applicable limit wins), or None without limits."""
    return min(usages, key=lambda u: (u.remaining, u.limit), default=None)


def is_raise(current: int | None, amount: int | None) -> bool:
    """Whether setting a limit to ``amount`` (None: no limit) from ``current`` loosens it (a request with a
    cooling-off) rather than lowering it or setting a first one (at once)."""
    if amount is None:
        return current is not None
    return current is not None and amount > current
