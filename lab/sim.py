"""The simulator's table: one spec (a rule set, its bank, its players) played round after round through the pure
rules core, from a seed; ``lab.runner`` plays a spec's chunks, a fresh table each, on every core.

Nothing here implements a rule. A :class:`SimTable` is a real table of the core (``CreateTable``, ``SitDown``,
then ``PlaceBet``/``Hit``/``Stand``/``Split``/``Assign`` through :func:`rules.handle`); the strategies
only choose which command to send, and the tally reads the core's own ``HandSettled`` results.

Reproducibility: a run is cut into chunks of ``spec.chunk`` rounds, chunk ``i`` being a fresh table whose
hand seeds come from ``(spec.seed, i)`` only (:func:`chunk_seed`, :func:`hand_seed`).

What keeps it fast without touching the rules: one ``handle`` per decision (no ``legal_actions`` probing), the
wallets are one constant mapping large enough that no stake is ever refused (nothing to track between
commands), the context of every command of a hand is built once, and events are not stored.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from rules import (
    PRESETS,
    Assign,
    Command,
    Context,
    CreateTable,
    HandSettled,
    HandSplit,
    HandStatus,
    Hit,
    PlaceBet,
    Rules,
    SitDown,
    Split,
    Stand,
    TableState,
    WaitKind,
    evaluate,
    handle,
    initial_state,
    make_table_config,
)

from .best import BestPlay
from .stats import Tally
from .strategies import (
    DEFAULT_BANKER,
    DEFAULT_PUNTER,
    banker_draws,
    banker_strategy,
    can_split,
    punter_strategy,
)

#: Rounds per chunk: part of what a seed reproduces (a different chunk size deals different tables).
CHUNK = 10_000
#: A wallet no flat-stake simulation can exhaust: reserves are never refused, so wallets need no tracking.
BOTTOMLESS = 10**15
#: Bumped whenever a change alters what a seed produces (cached figures carry it).
ENGINE_VERSION = 1
#: The punter strategy name of the exact engine's best play.
BEST_PUNTER = "best"


@dataclass(frozen=True)
class Spec:
    """One simulation: the rule set, the bank, the players and how much to play."""

    preset: str = "classic"
    overrides: Mapping[str, Any] = field(default_factory=dict)
    bank: str = "house"
    punters: int = 0  # 0: the default (1 at a house bank, 4 at a player bank)
    punter: str = DEFAULT_PUNTER
    banker: str = DEFAULT_BANKER  # player bank only; a house bank plays banker_stands_at_hp
    hands: int = 100_000
    seed: int = 1
    chunk: int = CHUNK
    max_bet: int = 1  # the table's maximum (its minimum is 1): the spread a ``best`` punter plays within

    @property
    def best(self) -> bool:
        """The punter plays the exact engine's best play (``lab.best``) instead of a named strategy."""
        return self.punter == BEST_PUNTER

    @property
    def seats(self) -> int:
        """Punters at the table."""
        return self.punters or (1 if self.bank == "house" else 4)

    def validate(self) -> Rules:
        """The resolved rules, or a DomainError / ValueError naming what is wrong."""
        config = make_table_config(
            preset=self.preset,
            overrides=dict(self.overrides),
            min_bet=1,
            max_bet=self.max_bet,
            max_seats=8 if self.bank == "player" else 7,
            bank=self.bank,
            fixed_stake=1 if _bank_fixed(self.preset, self.overrides) else None,
        )
        if not 1 <= self.seats <= 7:
            raise ValueError("punters must be 1 to 7")
        if self.hands < 1 or self.chunk < 1:
            raise ValueError("hands and chunk must be positive")
        if self.best and (self.bank != "house" or self.seats != 1):
            raise ValueError("the best punter plays alone at a house-banked table")
        if not self.best:
            punter_strategy(self.punter)
        banker_strategy(self.banker)
        return config.rules

    def to_json(self) -> dict[str, Any]:
        """The spec as runs are stored and keyed (results.json, the lab's rows). ``max_bet`` only for the ``best``
        punter: the named strategies stake the minimum whatever the table's maximum, so their runs keep the keys
        they had before the spread was a part of the spec."""
        data = asdict(self)
        data["overrides"] = dict(sorted(self.overrides.items()))
        data["punters"] = self.seats
        if not self.best:
            del data["max_bet"]
        return data


def _bank_fixed(preset: str, overrides: Mapping[str, Any]) -> bool:
    base = PRESETS.get(preset)
    mode = overrides.get("stake_mode", base.stake_mode if base else "player_choice")
    return bool(mode == "bank_fixed")


# -- seeds --------------------------------------------------------------------------------------------------


def chunk_seed(seed: int, index: int) -> bytes:
    """The seed of chunk ``index`` of a run seeded ``seed``."""
    return hashlib.sha256(f"seven-and-a-half lab:{seed}:{index}".encode()).digest()


def hand_seed(chunk: bytes, number: int) -> str:
    """The seed supply, in one place: the server seed (64 hex) of hand ``number`` of a chunk's table.

    Today the core takes the seed of the hand a command opens from that command's context's ``entropy``; every
    command of hand ``n`` carries the seed of hand ``n + 1`` (the seed is fixed before the hand it opens, as
    with seeds committed ahead). Adapting to another way of feeding seeds changes this function and
    :meth:`SimTable.context` only.
    """
    return hashlib.sha256(chunk + number.to_bytes(8, "big")).hexdigest()


# -- one table ----------------------------------------------------------------------------------------------


class SimTable:
    """One table of the core with simulated players, tallying every settled round."""

    def __init__(self, spec: Spec, seed: bytes, tally: Tally | None = None) -> None:
        self.spec = spec
        self.seed = seed
        self.tally = Tally()  # the warm-up's (see below)
        self.punter = punter_strategy(DEFAULT_PUNTER if spec.best else spec.punter)
        self.banker = banker_strategy(spec.banker)
        players = [f"p{i}" for i in range(spec.seats + (1 if spec.bank == "player" else 0))]
        self.wallets = dict.fromkeys(players, BOTTOMLESS)  # no "house" key: the house bank is unlimited
        self.now = 0
        self._ctx_for = -1
        self._ctx: Context | None = None
        self.state: TableState = initial_state()
        fixed = 1 if _bank_fixed(spec.preset, spec.overrides) else None
        seats = 8 if spec.bank == "player" else 7
        self.send(
            CreateTable(
                preset=spec.preset,
                overrides=dict(spec.overrides),
                min_bet=1,
                max_bet=spec.max_bet,
                max_seats=seats,
                bank=spec.bank,
                fixed_stake=fixed,
            )
        )
        assert self.state.config is not None
        self.rules: Rules = self.state.config.rules
        self.best = BestPlay(self.rules, 1, spec.max_bet) if spec.best else None
        for p in players:
            self.send(SitDown(player_id=p, username=p))
        # the first hand opened as soon as one punter (and a banker) sat: play until every punter is dealt in,
        # and count from there, so every round tallied has the whole table
        while len(self._open_hand_entrants()) < spec.seats:
            self.play(1)
        self.tally = tally if tally is not None else Tally()

    def _open_hand_entrants(self) -> tuple[int, ...]:
        hand = self.state.hand
        return hand.entrants if hand is not None and hand.in_play else ()

    def context(self) -> Context:
        """The context of the next command: built once per hand (the seed of the next hand, see hand_seed)."""
        number = self.state.hands_opened + 1
        if number != self._ctx_for:
            self._ctx_for = number
            self.now += 1
            self._ctx = Context(now_ms=self.now, wallets=self.wallets, entropy=hand_seed(self.seed, number))
        assert self._ctx is not None
        return self._ctx

    def prepare(self, state: TableState) -> TableState:
        """Hook called with the state before every command (identity; tests rig stocks through it)."""
        return state

    def send(self, command: Command, context: Context | None = None) -> None:
        """Run one command through the core (with ``context``, else the current one) and tally what it settled."""
        if context is None:
            context = self.context()
        events, self.state = handle(command, self.prepare(self.state), context)
        for e in events:
            t = type(e)
            if t is HandSettled:
                self._settled(e)  # type: ignore[arg-type]
            elif t is HandSplit:
                self.tally.counts["splits"] += 1
                self._split_round = True

    _split_round = False

    def _settled(self, e: HandSettled) -> None:
        tally = self.tally
        counts = tally.counts
        stake = 0
        for r in e.results:
            stake += r.bet
            counts[r.category] += 1
            counts[r.outcome] += 1
            if r.tie:
                counts["tie"] += 1
        tally.punter_hands += len(e.results)
        tally.add_round(e.banker_net, stake)
        counts["banker_" + (e.banker_category or "skipped")] += 1
        if e.bank_reason == "won":
            counts["bank_transfers"] += 1
        elif e.bank_reason == "rotation":
            counts["bank_rotations"] += 1
        if self._split_round:
            counts["rounds_with_split"] += 1
            self._split_round = False

    def play(self, rounds: int) -> Tally:
        """Play until ``rounds`` more rounds have settled."""
        target = self.tally.rounds + rounds
        while self.tally.rounds < target:
            self.step()
        return self.tally

    def step(self) -> None:
        """Send the one command the table waits for (the strategies choose which)."""
        state = self.state
        aw = state.awaiting
        hand = state.hand
        if aw is None or hand is None:  # pragma: no cover - a simulated table always waits on someone
            raise RuntimeError(f"the simulated table is stuck in phase {state.phase}")
        kind = aw.kind
        ctx = self.context()
        if kind == WaitKind.BETTING_WINDOW:
            for h in hand.punters:
                if h.stake == 0 and h.status != "void":
                    amount = hand.stake or (self.best.before_deal() if self.best is not None else 1)
                    self.send(PlaceBet(player_id=h.player_id, amount=amount), ctx)
                    if self.state.awaiting is None or self.state.awaiting.kind != WaitKind.BETTING_WINDOW:
                        return
            return
        seat = aw.seat
        if kind == WaitKind.BANKER:
            b = hand.banker
            pid = b.player_id
            assert pid is not None
            draw = banker_draws(self.banker, b.cards, hand.punters, self.rules)
            self.send(Hit(player_id=pid) if draw else Stand(player_id=pid), ctx)
            return
        mine = [h for h in hand.punters if h.seat == seat]
        pid = mine[0].player_id
        if self.best is not None:
            self.send(self.best.command(hand, aw, pid), ctx)
            return
        if kind == WaitKind.OWED_BET:
            self.send(PlaceBet(player_id=pid, amount=hand.stake or 1), ctx)
            return
        rules = self.rules
        split_seat = seat in hand.split_seats
        if kind == WaitKind.ASSIGN:
            self._assign(ctx, pid, mine, hand.pending[1] if hand.pending else "", hand)
            return
        h = mine[0] if len(mine) == 1 else next(x for x in mine if x.hand_index == aw.hand)
        cards = h.cards
        if (
            self.punter.split
            and rules.split_mode != "none"
            and can_split(cards, len(mine), rules, all(_picture(c) for x in mine for c in x.cards))
        ):
            self.send(Split(player_id=pid, amount=None, hand=h.hand_index if split_seat else None), ctx)
            return
        total = evaluate(cards, rules, split=split_seat).total_hp
        if self.punter.stands_on(total, len(cards)):
            self.send(Stand(player_id=pid, hand=h.hand_index if split_seat else None), ctx)
        else:
            self.send(Hit(player_id=pid, hand=h.hand_index if split_seat else None), ctx)

    def _assign(self, ctx: Context, pid: str, mine: list[Any], card: str, hand: Any) -> None:
        """Hungarian, after a split: a drawn picture may start a new hand while the window is open; otherwise
        the card goes to the open hand it helps most (the lowest total it does not bust)."""
        rules = self.rules
        open_hands = [h for h in mine if h.status == HandStatus.PLAYING]
        window = _picture(card) and all(_picture(c) for h in mine for c in h.cards)
        if self.punter.split and window and len(mine) < rules.max_hands_per_punter:
            self.send(Split(player_id=pid, amount=None, hand=None), ctx)
            return
        best = None
        for h in open_hands:
            before = evaluate(h.cards, rules, split=True).total_hp
            after = evaluate((*h.cards, card), rules, split=True)
            if after.category != "bust" and (best is None or before < best[0]):
                best = (before, h.hand_index)
        target = best[1] if best is not None else open_hands[0].hand_index
        self.send(Assign(player_id=pid, hand=target), ctx)


def _picture(code: str) -> bool:
    return code[:-1] in ("10", "11", "12")
