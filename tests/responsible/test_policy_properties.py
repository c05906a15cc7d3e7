"""Property tests of responsible gaming's pure rules (no database): in no sequence of stakes, wins, limit changes
and clock steps is a stake accepted whose reserve, added to the net loss of a period's window that ends then
(never below zero) and to every chip already at risk, passes that period's loss limit in force (API.md v1.3:
``used`` is the net loss plus chips at risk, and nothing else), nor a stake that passes the stake limit in force;
a raise never takes effect before its cooling-off."""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import example, given, settings
from hypothesis import strategies as st

from responsible.policy import (
    DAY_MS,
    PERIOD_MS,
    Period,
    binding,
    is_raise,
    limit_key,
    loss_usages,
    stake_refusal,
    window_loss,
)

COOLING_OFF_MS = DAY_MS
KEYS = [limit_key("loss", p) for p in Period] + ["stake"]

ops = st.one_of(
    st.tuples(st.just("stake"), st.integers(0, 2), st.integers(1, 60)),
    st.tuples(st.just("settle"), st.integers(0, 2), st.sampled_from([0, 0, 50, 100, 200])),  # payout: % of stake
    st.tuples(st.just("step"), st.sampled_from([1, 3_600_000, 5 * 3_600_000, 20 * 3_600_000, DAY_MS, 8 * DAY_MS])),
    st.tuples(st.just("limit"), st.sampled_from(KEYS), st.one_of(st.none(), st.integers(0, 100))),
    st.tuples(
        st.just("confirm"),
    ),
)


@dataclass
class Sim:
    now: int = 0
    limits: dict[str, int] = field(default_factory=dict)
    pending: dict[str, tuple[int | None, int]] = field(default_factory=dict)  # key -> (amount, confirmable at)
    open: dict[int, tuple[int, int, dict[str, int]]] = field(default_factory=dict)  # slot -> reserve, at, limits
    settled: list[tuple[int, int, int, dict[str, int]]] = field(default_factory=list)  # at, net, last stake, limits
    stakes: list[tuple[int, dict[str, int]]] = field(default_factory=list)
    raised_at: list[tuple[int, int]] = field(default_factory=list)  # (requested, took effect)

    def stake(self, slot: int, reserve: int) -> None:
        at_risk = sum(r for r, _, _ in self.open.values())
        usage = binding(
            loss_usages(self.limits, [(a, n) for a, n, _, _ in self.settled], at_risk=at_risk, now_ms=self.now)
        )
        if usage is not None and reserve > usage.remaining:
            return
        if stake_refusal(self.limits, reserve) is not None:
            return
        for period in Period:  # the definition, computed here apart from the code under test
            limit = self.limits.get(limit_key("loss", period))
            if limit is not None:
                net = sum(n for at, n, _, _ in self.settled if self.now - PERIOD_MS[period] < at <= self.now)
                assert max(0, -net) + at_risk + reserve <= limit, (period, net, at_risk, reserve, limit)
        held = self.open.get(slot, (0, 0, {}))[0]
        self.open[slot] = (held + reserve, self.now, dict(self.limits))
        self.stakes.append((reserve, dict(self.limits)))

    def settle(self, slot: int, percent: int) -> None:
        if slot in self.open:
            reserve, last, limits = self.open.pop(slot)
            self.settled.append((self.now, reserve * percent // 100 - reserve, last, limits))

    def set_limit(self, key: str, amount: int | None) -> None:
        if is_raise(self.limits.get(key), amount):
            self.pending[key] = (amount, self.now + COOLING_OFF_MS)
        else:
            self.pending.pop(key, None)
            if amount is None:
                self.limits.pop(key, None)
            else:
                self.limits[key] = amount

    def confirm(self) -> None:
        for key, (amount, confirmable) in list(self.pending.items()):
            if self.now >= confirmable:
                del self.pending[key]
                self.raised_at.append((confirmable - COOLING_OFF_MS, self.now))
                if amount is None:
                    self.limits.pop(key, None)
                else:
                    self.limits[key] = amount


# won 60, then under a daily limit of 10 a stake of 60 at hour 20: refused, since a win makes no room (the room is
# the limit less the net loss never below zero, so never more than the limit itself)
WIN_THEN_STAKE = [
    ("stake", 0, 60), ("settle", 0, 200), ("limit", "loss:day", 10), ("step", 20 * 3_600_000),
    ("stake", 1, 60), ("step", 5 * 3_600_000), ("settle", 1, 0),
]  # fmt: skip


@settings(max_examples=400, deadline=None)
@example(WIN_THEN_STAKE)
@given(st.lists(ops, max_size=50))
def test_no_stake_passes_a_loss_limit_counted_net_nor_the_stake_limit(steps: list[tuple]) -> None:
    play(steps)


def play(steps: list[tuple]) -> None:
    sim = Sim()
    for op in steps:
        play_one(sim, op)
    for amount, limits in sim.stakes:
        assert "stake" not in limits or amount <= limits["stake"]
    for requested, effective in sim.raised_at:
        assert effective - requested >= COOLING_OFF_MS


def play_one(sim: Sim, op: tuple) -> None:
    match op:
        case ("stake", slot, reserve):
            sim.stake(slot, reserve)
        case ("settle", slot, percent):
            sim.settle(slot, percent)
        case ("step", ms):
            sim.now += ms
        case ("limit", key, amount):
            sim.set_limit(key, amount)
        case ("confirm",):
            sim.confirm()


def test_a_win_never_makes_room_beyond_the_limit() -> None:
    # limit 10 a day; won 60 at hour 0; at hour 20 a stake of 60 is refused: the net loss is 0 (never below zero),
    # so the room is the limit, 10, whatever was won
    sim = Sim()
    for op in WIN_THEN_STAKE[:4]:
        play_one(sim, op)
    sim.stake(1, 60)
    assert 1 not in sim.open
    sim.stake(1, 10)
    assert sim.open[1][0] == 10


def test_loss_used_is_the_net_of_the_window_never_below_zero() -> None:
    # API.md v1.3: the window's net loss; a win and an equal loss inside it are a net of 0
    settled = [(0, 100), (20 * 3_600_000, -100)]
    assert window_loss(settled, now_ms=21 * 3_600_000, period_ms=DAY_MS) == 0
    assert window_loss(settled, now_ms=25 * 3_600_000, period_ms=DAY_MS) == 100  # the win has left the window
    assert window_loss([(0, -40), (1, 100)], now_ms=2, period_ms=DAY_MS) == 0
    assert window_loss([(0, 10), (1, -10)], now_ms=2, period_ms=DAY_MS) == 0  # the worst stretch would say 10
    assert window_loss([(0, -40), (1, 10), (2, -30)], now_ms=3, period_ms=DAY_MS) == 60
