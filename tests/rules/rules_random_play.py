"""Random play of whole tables for the property tests: random (often legal, sometimes not) commands."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from rules import (
    ACTION_NAMES,
    CANONICAL_DECK,
    HOUSE,
    Assign,
    BetPlaced,
    CardDealt,
    CardTurnedUp,
    Command,
    Context,
    CreateTable,
    DomainError,
    Event,
    HandBusted,
    HandMadePairOfSevens,
    HandMadeSevenHalf,
    HandOpened,
    HandSettled,
    HandSplit,
    Hit,
    HitFaceDown,
    LeaveSeat,
    PlaceBet,
    Raise,
    RetireBank,
    SetStake,
    SitDown,
    SitIn,
    SitOut,
    Split,
    StakeRaised,
    Stand,
    TableState,
    Timeout,
    handle,
    initial_state,
    is_picture,
    legal_actions,
)
from rules.testing import rig_next_hand
from tests.rules.rules_helpers import apply_ledger, entropy_for

PRESETS = ("classic", "italian", "spanish", "hungarian")
WEIGHTS = {
    "sit_down": 0.5,
    "leave": 0.3,
    "bet": 30.0,
    "hit": 30.0,
    "hit_face_down": 10.0,
    "stand": 22.0,
    "raise": 8.0,
    "split": 80.0,
    "assign": 40.0,
    "sit_out": 0.3,
    "sit_in": 1.0,
    "set_stake": 0.5,
    "retire_bank": 0.3,
}


@dataclass
class Step:
    command: Command
    context: Context
    accepted: bool
    events: list[Event]
    before: TableState
    after: TableState
    legal_before: list[str]
    error: DomainError | None = None


@dataclass
class RandomTable:
    rng: random.Random
    preset: str
    bank: str
    state: TableState = field(default_factory=initial_state)
    wallets: dict[str, int] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    commands: list[tuple[Command, Context]] = field(default_factory=list)  # the accepted ones, with their contexts
    steps: list[Step] = field(default_factory=list)
    count: int = 0
    now_ms: int = 1_700_000_000_000
    deposited: int = 0
    min_bet: int = 5
    max_bet: int = 50
    house_funded: bool = False
    track_legal: bool = False
    rig_pictures: bool = False

    def ctx(self) -> Context:
        self.count += 1
        self.now_ms += self.rng.randint(0, 40_000)
        wallets = {p: v for p, v in self.wallets.items() if p != HOUSE or self.house_funded}
        return Context(now_ms=self.now_ms, wallets=wallets, entropy=entropy_for(self.rng.getrandbits(48)))

    def picture_heavy_stock(self) -> list[str]:
        """Pictures and sevens first (splits, reales, pairs of sevens), the rest after, each part shuffled."""
        first = [c for c in CANONICAL_DECK if is_picture(c) or c.startswith("7")]
        rest = [c for c in CANONICAL_DECK if c not in first]
        self.rng.shuffle(first)
        self.rng.shuffle(rest)
        return first + rest

    def send(self, command: Command, context: Context | None = None) -> Step:
        if context is None:
            context = self.ctx()
        if self.rig_pictures and self.state.rigged_stock is None and self.state.config is not None:
            self.state = rig_next_hand(self.state, self.picture_heavy_stock())
        before = self.state
        pid = getattr(command, "player_id", None)
        track = self.track_legal and isinstance(pid, str)
        legal = legal_actions(before, pid, context.wallets) if track else []
        try:
            events, after = handle(command, before, context)
        except DomainError as error:
            step = Step(command, context, False, [], before, before, legal, error)
        else:
            self.state = after
            self.events.extend(events)
            self.commands.append((command, context))
            apply_ledger(self.wallets, events)
            step = Step(command, context, True, events, before, after, legal)
        self.steps.append(step)
        return step

    def setup(self, punters: int) -> None:
        overrides: dict[str, Any] = {}
        fixed = 10 if self.preset == "hungarian" else None
        if self.preset == "italian" and self.rng.random() < 0.3:
            overrides["matta_alone_value"] = "free"
        if self.rng.random() < 0.2:
            overrides["tie_rule"] = "push"
        if self.bank == "player" and self.rng.random() < 0.2:
            overrides["bank_rotation"] = "every_hand"
        self.wallets = {}
        if self.bank == "house" and self.rng.random() < 0.5:
            self.wallets[HOUSE] = self.rng.choice([50, 500, 10**6])
            self.house_funded = True
            self.deposited += self.wallets[HOUSE]
        step = self.send(
            CreateTable(
                preset=self.preset,
                overrides=overrides,
                min_bet=self.min_bet,
                max_bet=self.max_bet,
                max_seats=8 if self.bank == "player" else 7,
                bank=self.bank,
                fixed_stake=fixed,
                turn_timeout_s=20,
                betting_timeout_s=15,
            )
        )
        assert step.accepted, step.error
        for i in range(punters + (1 if self.bank == "player" else 0)):
            self.join(f"u{i}")

    def join(self, player_id: str) -> None:
        wallet = self.rng.choice([0, 20, 60, 200, 1000, 1000, 100_000])
        self.wallets[player_id] = wallet
        self.deposited += wallet
        self.send(
            SitDown(
                player_id=player_id,
                username=player_id.upper(),
                seat=None,
                client_seed=f"seed-{player_id}",
            )
        )

    def random_command(self, player_id: str, name: str) -> tuple[Command, Context]:
        rng = self.rng
        ctx = self.ctx()
        amount = rng.choice([self.min_bet, self.min_bet, 10, rng.randint(1, 60), self.max_bet])
        hand = rng.choice([None, None, None, 0, 1, 2])
        if name == "sit_down":
            return SitDown(player_id=player_id, username=player_id.upper(), seat=rng.choice([None, 1, 3, 9])), ctx
        if name == "leave":
            return LeaveSeat(player_id=player_id), ctx
        if name == "bet":
            return PlaceBet(player_id=player_id, amount=amount), ctx
        if name == "hit":
            return Hit(player_id=player_id, hand=hand), ctx
        if name == "hit_face_down":
            return HitFaceDown(player_id=player_id, hand=hand), ctx
        if name == "stand":
            return Stand(player_id=player_id, hand=hand), ctx
        if name == "raise":
            return Raise(player_id=player_id, amount=rng.choice([1, 5, 20, 100]), hand=hand), ctx
        if name == "split":
            return Split(
                player_id=player_id,
                amount=rng.choice([None, None, amount]),
                hand=rng.choice([None, None, 0, 1]),
            ), ctx
        if name == "assign":
            return Assign(player_id=player_id, hand=rng.choice([0, 0, 1, 1, 2, 3])), ctx
        if name == "sit_out":
            return SitOut(player_id=player_id), ctx
        if name == "sit_in":
            return SitIn(player_id=player_id), ctx
        if name == "set_stake":
            return SetStake(player_id=player_id, amount=amount), ctx
        return RetireBank(player_id=player_id), ctx

    def players(self) -> list[str]:
        return [s.player_id for s in self.state.seats]

    def step(self) -> Step:
        rng = self.rng
        roll = rng.random()
        if roll < 0.08 or (roll < 0.12 and self.state.awaiting is not None):
            version = self.state.version if rng.random() < 0.85 else max(0, self.state.version - 1)
            return self.send(Timeout(expected_version=version))
        aw = self.state.awaiting
        seated = self.players()
        if aw is not None and aw.seat is not None and rng.random() < 0.85:
            seat = self.state.seat_at(aw.seat)
            player = seat.player_id if seat else rng.choice(seated)
        elif seated and rng.random() < 0.95:
            player = rng.choice(seated)
        else:
            player = f"u{len(self.wallets) + rng.randint(0, 3)}"
            if player not in self.wallets:
                self.wallets[player] = rng.choice([20, 1000])
                self.deposited += self.wallets[player]
        if rng.random() < 0.9:
            wallets = {p: v for p, v in self.wallets.items() if p != HOUSE or self.house_funded}
            legal = legal_actions(self.state, player, wallets)
            if not legal:
                legal = list(ACTION_NAMES)
            name = rng.choices(legal, [WEIGHTS[n] for n in legal])[0]
        else:
            name = rng.choice(ACTION_NAMES)
        return self.send(*self.random_command(player, name))

    def run(self, steps: int) -> Iterator[Step]:
        for _ in range(steps):
            yield self.step()


def escrow_after(events: list[Event], escrow: int) -> int:
    """Escrow balance after ``events``: reserves in, payouts out."""
    for e in events:
        if isinstance(e, (BetPlaced, StakeRaised, HandSplit)):
            escrow += e.punter_reserve + e.banker_reserve
        elif isinstance(e, HandSettled):
            escrow -= sum(e.payouts.values())
    return escrow


class Witness:
    """Which cards each viewer has legitimately seen in the current hand, from the events alone."""

    def __init__(self) -> None:
        self.number = 0
        self.public: set[str] = set()
        self.private: dict[str, set[str]] = {}
        self.dealt: set[str] = set()
        self.settled = False
        self.by_hand: dict[tuple[int | None, int | None, bool], list[str]] = {}

    def see(self, event: Event, after: TableState) -> None:
        if isinstance(event, HandOpened):
            self.__init__()  # type: ignore[misc]
            self.number = event.number
        elif isinstance(event, CardDealt):
            self.dealt.add(event.card)
            if event.face_up:
                self.public.add(event.card)
            elif event.player_id is not None:
                self.private.setdefault(event.player_id, set()).add(event.card)
        elif isinstance(event, CardTurnedUp):
            self.public.add(event.card)
        elif isinstance(event, (HandBusted, HandMadeSevenHalf, HandMadePairOfSevens)) and not event.banker:
            hand = after.hand
            assert hand is not None
            h = hand.find(event.seat or 0, event.hand)
            assert h is not None
            self.public.update(h.cards)
        elif isinstance(event, HandSettled):
            self.settled = True
            self.public.update(self.dealt)

    def allowed(self, player_id: str | None) -> set[str]:
        return self.public | (self.private.get(player_id, set()) if player_id else set())
