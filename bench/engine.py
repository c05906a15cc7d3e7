"""Benchmark of the rules core: random complete hands per preset, hands per second on one core.

Usage: python bench/engine.py [--hands N] [--punters 4] [--bank player|house] [--seed 1]

Each hand is played through ``rules.handle`` (decide + the folded state) by a driver that picks a
random legal move at every decision; entropy for the shuffles is precomputed so the figure is the core's.
To compare two versions of the core on a shared machine, where single runs of this script move by +-30%, use
``bench/engine_replay.py --against REV`` (the same driver's commands replayed, fastest of several passes, both
versions in one run).
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import time
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules import (
    HOUSE,
    Assign,
    BetPlaced,
    Context,
    CreateTable,
    DomainError,
    Event,
    HandSettled,
    HandSplit,
    HandStatus,
    Hit,
    HitFaceDown,
    PlaceBet,
    Raise,
    SitDown,
    Split,
    StakeRaised,
    Stand,
    TableState,
    WaitKind,
    evaluate,
    handle,
    initial_state,
)

PRESETS = ("classic", "italian", "spanish", "hungarian")
_STAKE_EVENTS = frozenset({BetPlaced, StakeRaised, HandSplit})


class Bench:
    """One table and a random player for every seat."""

    def __init__(self, preset: str, punters: int, bank: str, seed: int) -> None:
        self.rng = random.Random(seed)
        self.entropy = [hashlib.sha256(f"{seed}:{i}".encode()).hexdigest() for i in range(4096)]
        self.n = 0
        self.players = [f"p{i}" for i in range(punters + (1 if bank == "player" else 0))]
        self.wallets: dict[str, int] = {p: 10**9 for p in self.players}
        self.state: TableState = initial_state()
        self.hands = 0
        self.core_seconds = 0.0
        self._seats: tuple[object, ...] = ()
        self._player_at: dict[int, str] = {}
        fixed = 10 if preset == "hungarian" else None
        self.send(
            CreateTable(
                preset=preset,
                overrides={},
                min_bet=10,
                max_bet=100,
                max_seats=8 if bank == "player" else 7,
                bank=bank,
                fixed_stake=fixed,
            )
        )
        for p in self.players:
            self.send(SitDown(player_id=p, username=p))
        self.rules = self.state.config.rules if self.state.config else None

    def ctx(self) -> Context:
        self.n += 1
        return Context(
            now_ms=self.n, wallets=self.wallets, entropy=self.entropy[self.n & 4095]
        )  # no "house" key: an unlimited bank

    def send(self, command: object) -> list[Event]:
        context = self.ctx()
        clock = time.perf_counter
        start = clock()
        try:
            events, self.state = handle(command, self.state, context)  # type: ignore[arg-type]
        finally:
            self.core_seconds += clock() - start
        wallets = self.wallets
        for e in events:
            t = type(e)
            if t in _STAKE_EVENTS:
                wallets[e.player_id] -= e.punter_reserve  # type: ignore[attr-defined]
                bank = e.banker_id  # type: ignore[attr-defined]
                if bank is not None:
                    wallets[bank] -= e.banker_reserve  # type: ignore[attr-defined]
            elif t is HandSettled:
                self.hands += 1
                for party, amount in e.payouts.items():  # type: ignore[attr-defined]
                    if party != HOUSE:
                        wallets[party] += amount
        return events

    def try_send(self, command: object) -> bool:
        try:
            self.send(command)
        except DomainError:
            return False
        return True

    def step(self) -> None:
        state = self.state
        aw = state.awaiting
        hand = state.hand
        assert aw is not None and hand is not None, "the bench table always waits on someone"
        rng = self.rng
        rules = self.rules
        assert rules is not None
        if aw.kind == WaitKind.BETTING_WINDOW:
            for h in hand.punters:
                if h.stake == 0:
                    self.send(
                        PlaceBet(
                            player_id=h.player_id, amount=hand.stake or 10 + int(rng.random() * 91)
                        )
                    )
                    if self.state.awaiting is None or self.state.awaiting.kind != WaitKind.BETTING_WINDOW:
                        return
            return
        seats = state.seats
        if seats is not self._seats:  # the player of every seat, rebuilt only when the seats change
            self._seats = seats
            self._player_at = {s.seat: s.player_id for s in seats}
        pid = self._player_at.get(aw.seat, "")  # type: ignore[arg-type]
        if aw.kind == WaitKind.OWED_BET:
            self.send(PlaceBet(player_id=pid, amount=hand.stake or 10 + int(rng.random() * 91)))
            return
        if aw.kind == WaitKind.BANKER:
            total = evaluate(hand.banker.cards, rules).total_hp
            self.send(
                Hit(player_id=pid)
                if total < 8 + 7 * rng.random()
                else Stand(player_id=pid)
            )
            return
        if aw.kind == WaitKind.ASSIGN:
            if rng.random() < 0.3 and self.try_send(Split(player_id=pid)):
                return
            open_hands = [h.hand_index for h in hand.punters if h.seat == aw.seat and h.status == HandStatus.PLAYING]
            self.send(Assign(player_id=pid, hand=rng.choice(open_hands)))
            return
        played = hand.find(aw.seat, aw.hand)  # type: ignore[arg-type]
        assert played is not None
        roll = rng.random()
        # the driver only tries moves its table's rules allow (a refused try still goes through decide)
        if roll < 0.15 and rules.split_mode != "none" and self.try_send(Split(player_id=pid)):
            return
        if roll < 0.25 and rules.raise_on_draw and self.try_send(Raise(player_id=pid, amount=5)):
            return
        total = evaluate(played.cards, rules, split=aw.seat in hand.split_seats).total_hp
        if total < 6 + 8 * rng.random():
            if roll > 0.8 and rules.hidden_card_swap and self.try_send(HitFaceDown(player_id=pid)):
                return
            self.send(Hit(player_id=pid))
        else:
            self.send(Stand(player_id=pid))

    def play(self, hands: int) -> float:
        start = time.perf_counter()
        while self.hands < hands:
            self.step()
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=5000)
    parser.add_argument("--punters", type=int, default=4)
    parser.add_argument("--bank", choices=("player", "house"), default="player")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--preset", choices=PRESETS, action="append")
    args = parser.parse_args()
    calibration = min(timeit.repeat("sum(range(1000))", number=2000, repeat=5)) / 2000 * 1e6
    print(f"rules core: random complete hands, {args.punters} punters, {args.bank} bank, one core")
    print(f"machine calibration: sum(range(1000)) takes {calibration:.1f} us (compare benches across machines)")
    for preset in args.preset or PRESETS:
        bench = Bench(preset, args.punters, args.bank, args.seed)
        seconds = bench.play(args.hands)
        print(
            f"{preset:10s} {bench.hands:7d} hands in {seconds:6.2f} s = {bench.hands / seconds:7.0f} hands/s"
            f"  (inside the core: {bench.core_seconds:6.2f} s = {bench.hands / bench.core_seconds:7.0f} hands/s)"
        )


if __name__ == "__main__":
    main()
