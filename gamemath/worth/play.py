"""The punter's game against the house's fixed rule, by dynamic programming over the remaining pack.

A :class:`Solver` values every decision of one punter at a pair of stake amounts ``low`` (the minimum, or S) and
``high`` (the maximum), either for the play that maximises his expected winnings (``strategy=None``) or for a
fixed :class:`Strategy` (the lab's published ``standard`` among them).

Stakes are linear: every amount the punter may choose (the bet after the peek, a raise, a split's stake) is best
at one end of its range, so a stake is a *level*, 0 (``low``) or 1 (``high``). A value is the 4-tuple
``(w_low, w_high, s_low, s_high)``: expected winnings ``w_low * low + w_high * high`` and chips staked
``s_low * low + s_high * high``, every component an integer scaled by ``N!`` for a node whose pack holds ``N``
cards (see :mod:`.pack`; the top of the tree is scaled by ``40!``). Options compare by their winnings at
(``low``, ``high``); the linear form tells how a chosen play's figures move with the limits
(:func:`gamemath.worth.max_bet_allowed` solves for the largest maximum with it). Ties between options keep the
first one listed: standing before hitting, the smaller stake before the larger, not raising and not splitting.

A state carries everything that can still change the result: the remaining pack, the hand being played (or, after
a Hungarian split, the open hands), the stakes' levels, the hands still to play, and the hands standing for the
banker (their result depends on the pack he draws from at the end, so they are part of the state).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from gamemath.enums import BetTiming, Category, SplitMode, StakeMode
from gamemath.scoring import Score, settle_hand

from .pack import FACT, Counts, Hand, Pack

Value = tuple[int, int, int, int]
Action = tuple[object, ...]
Options = list[tuple[Action, Value]]
#: Hands waiting for the banker: (score, stake level), sorted.
Standing = tuple[tuple[Score, int], ...]
#: A Hungarian punter's open hands in the frozen model: (total in hp, stake level).
Frozen = tuple[tuple[int, int], ...]
#: Hands with a stake level: Spanish hands still to play, or a Hungarian punter's open hands.
Staked = tuple[tuple[Hand, int], ...]

ZERO: Value = (0, 0, 0, 0)


@dataclass(frozen=True, slots=True)
class Strategy:
    """A fixed punter policy the engine can value: stand at ``stand_at`` hp or more (else hit), split whenever the
    rules allow it (with the least stake) when ``split``, stake the maximum on the first cards whose total (hp) is
    in ``high_first`` (after a peek) or on every hand (``high_before_deal``), raise to the maximum before any
    decision on a hand whose total is in ``raise_at``. ``Strategy()`` is the lab's ``standard``: minimum stake,
    stand at 5, always split, never raise. A Hungarian card after a split goes to the open hand with the lowest
    total it does not bust (the first open hand if it busts every one), as the lab's simulated punter does."""

    stand_at: int = 10
    split: bool = True
    high_first: frozenset[int] = frozenset()
    high_before_deal: bool = False
    raise_at: frozenset[int] = frozenset()


STANDARD = Strategy()


def _with(standing: Standing, score: Score, level: int) -> Standing:
    return tuple(sorted((*standing, (score, level)), key=_standing_key))


def _standing_key(item: tuple[Score, int]) -> tuple[str, int, int]:
    return (item[0].category, item[0].total_hp, item[1])


class Solver:
    """Values of one punter's decisions at stake amounts ``low`` <= ``high`` (only their ratio matters)."""

    def __init__(
        self, pack: Pack, low: int, high: int, strategy: Strategy | None = None, *, exact_splits: bool = False
    ) -> None:
        rules = pack.rules
        self.pack = pack
        self.rules = rules
        self.low = low
        self.high = high
        self.strategy = strategy
        #: Two stake levels only when the punter can choose an amount and the limits differ.
        self.levels: tuple[int, ...] = (0, 1) if high > low and rules.stake_mode != StakeMode.BANK_FIXED else (0,)
        self.raise_ok = rules.raise_on_draw and len(self.levels) == 2
        self.mode = rules.split_mode
        self.max_hands = rules.max_hands_per_punter
        #: After a split, the fast model (docs/exact-worth.md, "Split rounds"): the cards of the round's finished
        #: hands go back into the pack, and a hand is settled against the banker as soon as it stands.
        self.approx = self.mode != SplitMode.NONE and not exact_splits
        #: Every value is scaled by ``N! * extra`` (``N`` the cards left). The fast model's expectations have
        #: denominators up to ``40!`` per finished hand, so its values carry ``40! ** max_hands`` more.
        self.extra = FACT[40] ** self.max_hands if self.approx else 1
        #: Hungarian split rounds in the fast model without a wild card: the pack frozen at the split.
        self.frozen_ok = self.approx and self.mode == SplitMode.HUNGARIAN and not rules.has_matta
        self._frozen: dict[tuple[object, ...], Value] = {}
        self._grown: dict[tuple[int, int], Score] = {}
        self._turns: dict[tuple[object, ...], Value] = {}
        self._multis: dict[tuple[object, ...], Value] = {}

    # -- values -------------------------------------------------------------------------------------------

    def scale(self, pack: Counts) -> int:
        """What a value at a node with this pack is scaled by."""
        return FACT[sum(pack)] * self.extra

    def winnings(self, v: Value) -> int:
        return v[0] * self.low + v[1] * self.high

    def staked(self, v: Value) -> int:
        return v[2] * self.low + v[3] * self.high

    def _best(self, options: Options) -> tuple[Action, Value]:
        best = options[0]
        top = self.winnings(best[1])
        for option in options[1:]:
            w = self.winnings(option[1])
            if w > top:
                best, top = option, w
        return best

    # -- the stake ---------------------------------------------------------------------------------------------

    def top(self) -> Value:
        """(winnings, chips staked) over the whole round as a linear form, scaled by 40!."""
        if self.rules.bet_timing == BetTiming.BEFORE_DEAL:
            return self.before_deal_pick()[1]
        p = self.pack
        a = b = c = d = 0
        for t, n in enumerate(p.full):
            if n:
                v = self.bet_pick(p.remove(p.full, t), self.first(t))[1]
                a += n * v[0]
                b += n * v[1]
                c += n * v[2]
                d += n * v[3]
        return a, b, c, d

    def first(self, t: int) -> Hand:
        """The hand of one card of type ``t``."""
        return self.pack.hand(self.pack.add(self.pack.empty, t), t)

    def before_deal_options(self) -> Options:
        p = self.pack
        out: Options = []
        for level in self.levels:
            a = b = c = d = 0
            for t, n in enumerate(p.full):
                if n:
                    v = self.dealt(p.remove(p.full, t), self.first(t), level)
                    a += n * v[0]
                    b += n * v[1]
                    c += n * v[2]
                    d += n * v[3]
            out.append((("bet", level), (a, b, c, d)))
        return out

    def before_deal_pick(self) -> tuple[Action, Value]:
        options = self.before_deal_options()
        if self.strategy is None:
            return self._best(options)
        return options[-1] if self.strategy.high_before_deal else options[0]

    def bet_options(self, pack: Counts, first: Hand) -> Options:
        """After the peek: the stake level on the first card."""
        return [(("bet", level), self.dealt(pack, first, level)) for level in self.levels]

    def bet_pick(self, pack: Counts, first: Hand) -> tuple[Action, Value]:
        options = self.bet_options(pack, first)
        if self.strategy is None:
            return self._best(options)
        total = self.pack.score(first[0], False).total_hp
        return options[-1] if total in self.strategy.high_first else options[0]

    def dealt(self, pack: Counts, first: Hand, level: int) -> Value:
        v = self.after_card(pack, first, level, (), (), 1, False)
        return _add_stake(v, level, self.scale(pack))

    # -- one hand at a time (no split, Spanish splits, a Hungarian hand before its first split) --------------

    def after_card(
        self, pack: Counts, hand: Hand, level: int, pending: Staked, standing: Standing, n: int, split: bool
    ) -> Value:
        """A card has just reached ``hand``: it busts, settles a pair of sevens, closes at 15 hp or plays on."""
        score = self.pack.score(hand[0], split)
        if score.category == Category.BUST or score.category == Category.PAIR7:
            v = self.next_hand(pack, pending, standing, n, split)
            return _add_win(v, level, settle_hand(score, 1, None, self.rules).net * self.scale(pack))
        if score.total_hp == 15:
            return self.stand(pack, score, level, pending, standing, n, split)
        return self.turn(pack, hand, level, pending, standing, n, split)

    def stand(
        self, pack: Counts, score: Score, level: int, pending: Staked, standing: Standing, n: int, split: bool
    ) -> Value:
        """The hand being played stands with ``score``: it waits for the banker (after a split in the fast model,
        it is settled now, against the banker drawing from the pack as it is)."""
        if self.approx and split:
            v = self.next_hand(pack, pending, standing, n, split)
            return _add_win(v, level, self.pack.unit(pack, score) * self.extra)
        return self.next_hand(pack, pending, _with(standing, score, level), n, split)

    def next_hand(self, pack: Counts, pending: Staked, standing: Standing, n: int, split: bool) -> Value:
        if pending:
            (hand, level), rest = pending[0], pending[1:]
            if self.approx and split:  # the finished hand's cards go back into the pack
                fresh = self.open_pack(pending)
                return self.rescale(self.turn(fresh, hand, level, rest, (), n, split), fresh, pack)
            return self.turn(pack, hand, level, rest, standing, n, split)
        return self.finish(pack, standing)

    # -- the fast model of a split round -------------------------------------------------------------------

    def open_pack(self, hands: Staked) -> Counts:
        """The fast model's pack after a split: the full pack less the cards of the hands still in play."""
        left = list(self.pack.full)
        for (counts, _), _ in hands:
            for t, k in enumerate(counts):
                left[t] -= k
        return tuple(left)

    def rescale(self, v: Value, fresh: Counts, pack: Counts) -> Value:
        """A value at a node whose pack is ``fresh`` as a value at a node whose pack is ``pack`` (a sub-multiset:
        the fast model's pack grows when a hand finishes). Exact: the division always leaves no remainder."""
        d = FACT[sum(fresh)] // FACT[sum(pack)]
        if d == 1:
            return v
        out = []
        for x in v:
            q, r = divmod(x, d)
            if r:  # pragma: no cover - extra scale makes every such value divisible
                raise ArithmeticError("inexact rescale")
            out.append(q)
        return out[0], out[1], out[2], out[3]

    def project(self, pack: Counts, hands: Staked, standing: Standing, split: bool) -> tuple[Counts, Standing]:
        """A state of the real game as the fast model sees it (its pack, no hands standing)."""
        if self.approx and split:
            return self.open_pack(hands), ()
        return pack, standing

    def finish(self, pack: Counts, standing: Standing) -> Value:
        """The banker plays (if any hand stands) and every standing hand settles."""
        w = [0, 0]
        for score, level in standing:
            w[level] += self.pack.unit(pack, score)
        return w[0] * self.extra, w[1] * self.extra, 0, 0

    def turn(
        self, pack: Counts, hand: Hand, level: int, pending: Staked, standing: Standing, n: int, split: bool
    ) -> Value:
        if self.approx and split and pending and not self.may_split(hand, n):
            # The fast model: once the hand cannot split, what the hands after it bring does not depend on how it
            # is played, so its own play is valued alone and theirs added.
            own = self.turn(pack, hand, level, (), (), self.max_hands, split)
            fresh = self.open_pack(pending)
            after = self.rescale(self.next_hand(fresh, pending, (), n, split), fresh, pack)
            return own[0] + after[0], own[1] + after[1], own[2] + after[2], own[3] + after[3]
        key = (pack, hand, level, pending, standing, n, split)
        v = self._turns.get(key)
        if v is None:
            v = self._turn_pick(pack, hand, level, pending, standing, n, split)[1]
            self._turns[key] = v
        return v

    def turn_pick(
        self, pack: Counts, hand: Hand, level: int, pending: Staked, standing: Standing, n: int, split: bool
    ) -> tuple[Action, Value]:
        """The play picked in a state of the real game (seen through the fast model after a split)."""
        pack, standing = self.project(pack, ((hand, level), *pending), standing, split)
        return self._turn_pick(pack, hand, level, pending, standing, n, split)

    def _turn_pick(
        self, pack: Counts, hand: Hand, level: int, pending: Staked, standing: Standing, n: int, split: bool
    ) -> tuple[Action, Value]:
        strategy = self.strategy
        if strategy is None:
            return self._best(self.turn_options(pack, hand, level, pending, standing, n, split))
        total = self.pack.score(hand[0], split).total_hp
        wanted: Action
        if self.raise_ok and level == 0 and total in strategy.raise_at:
            wanted = ("raise",)
        elif strategy.split and self.can_split(hand, n):
            wanted = ("split", level if self.mode == SplitMode.SPANISH else 0)
        elif total >= strategy.stand_at:
            wanted = ("stand",)
        else:
            wanted = ("hit",)
        return wanted, self.turn_action(pack, hand, level, pending, standing, n, split, wanted)

    def can_split(self, hand: Hand, n: int) -> bool:
        """Whether the rules let the hand being played split now (RULES.md §4.2, ``rules.splits``)."""
        counts = hand[0]
        if n >= self.max_hands or not self.pack.all_pictures(counts):
            return False
        if self.mode == SplitMode.SPANISH:
            return sum(counts) == 2
        return self.mode == SplitMode.HUNGARIAN and n == 1 and sum(counts) >= 2

    def may_split(self, hand: Hand, n: int) -> bool:
        """Whether the Spanish hand being played can split now or after more cards (two pictures, no more)."""
        counts = hand[0]
        return n < self.max_hands and sum(counts) <= 2 and self.pack.all_pictures(counts)

    def split_levels(self, level: int) -> tuple[int, ...]:
        """A new hand's stake: at least the split hand's (Spanish) or the minimum (Hungarian), at most the max."""
        least = level if self.mode == SplitMode.SPANISH else 0
        return tuple(x for x in self.levels if x >= least)

    def turn_options(
        self, pack: Counts, hand: Hand, level: int, pending: Staked, standing: Standing, n: int, split: bool
    ) -> Options:
        actions: list[Action] = [("stand",), ("hit",)]
        if self.raise_ok and level == 0:
            actions.append(("raise",))
        if self.can_split(hand, n):
            actions.extend(("split", x) for x in self.split_levels(level))
        return [(a, self.turn_action(pack, hand, level, pending, standing, n, split, a)) for a in actions]

    def turn_action(
        self,
        pack: Counts,
        hand: Hand,
        level: int,
        pending: Staked,
        standing: Standing,
        n: int,
        split: bool,
        action: Action,
    ) -> Value:
        p = self.pack
        counts = hand[0]
        kind = action[0]
        if kind == "stand":
            return self.stand(pack, p.score(counts, split), level, pending, standing, n, split)
        if kind == "hit":
            a = b = c = d = 0
            for t, k in enumerate(pack):
                if k:
                    v = self.after_card(
                        p.remove(pack, t), p.hand(p.add(counts, t), t), level, pending, standing, n, split
                    )
                    a += k * v[0]
                    b += k * v[1]
                    c += k * v[2]
                    d += k * v[3]
            return a, b, c, d
        nf = self.scale(pack)
        if kind == "raise":
            v = self.turn(pack, hand, 1, pending, standing, n, split)
            return v[0], v[1], v[2] - nf, v[3] + nf
        new_level = action[1]
        assert isinstance(new_level, int)
        moved = hand[1] if p.keeps_last else 0  # the last picture received starts the new hand
        rest = p.remove(counts, moved)
        only = next(t for t, k in enumerate(rest) if k) if sum(rest) == 1 else -1
        new_hand = p.hand(p.add(p.empty, moved), moved)
        if self.mode == SplitMode.SPANISH:
            v = self.turn(pack, p.hand(rest, only), level, (*pending, (new_hand, new_level)), standing, n + 1, True)
        else:
            v = self.multi_entry(pack, (((rest, -1), level), ((new_hand[0], -1), new_level)), standing, n + 1)
        return _add_stake(v, new_level, nf)

    # -- a Hungarian punter after his first split: every card drawn is given to one of his open hands -------

    def multi(self, pack: Counts, open_: Staked, standing: Standing, n: int) -> Value:
        if not open_:
            return self.finish(pack, standing)
        if self.strategy is None:
            open_ = tuple(sorted(open_))  # his open hands are alike to him: their order does not matter
        key = (pack, open_, standing, n)
        v = self._multis.get(key)
        if v is None:
            v = self._multi_pick(pack, open_, standing, n)[1]
            self._multis[key] = v
        return v

    def multi_entry(self, pack: Counts, open_: Staked, standing: Standing, n: int) -> Value:
        """The value of a Hungarian punter's round from his first split on."""
        if not self.frozen_ok:
            return self.multi(pack, open_, standing, n)
        frozen = self.freeze(open_)
        r = self.reach(frozen, n, True)
        v = self.frozen(pack, frozen, n, True)
        d = sum(pack) ** r
        return v[0] * self.extra // d, v[1] * self.extra // d, v[2] * self.extra // d, v[3] * self.extra // d

    def multi_pick(
        self, pack: Counts, open_: Staked, standing: Standing, n: int, *, split_pack: Counts | None = None
    ) -> tuple[Action, Value]:
        """The play picked in a state of the real game after a Hungarian split; the fast model without a wild
        card also needs ``split_pack``, the pack as it stood at the round's first split."""
        if self.frozen_ok:
            assert split_pack is not None
            return self.frozen_pick(split_pack, self.freeze(open_), n, self.pack.window_open(pack))
        return self._multi_pick(pack, open_, standing, n)

    def _multi_pick(self, pack: Counts, open_: Staked, standing: Standing, n: int) -> tuple[Action, Value]:
        pack, standing = self.project(pack, open_, standing, True)
        strategy = self.strategy
        if strategy is None:
            return self._best(self.multi_options(pack, open_, standing, n))
        hand, level = open_[0]  # the lab plays his first open hand
        wanted = self._after_split_fixed(strategy, self.pack.score(hand[0], True).total_hp, level)
        return wanted, self.multi_action(pack, open_, standing, n, wanted)

    def _after_split_actions(self, levels: Iterable[int]) -> list[Action]:
        """Every play after a split, given the open hands' stake levels: stand one of them, take the next card
        (it goes where the rules send it), or raise one still at the minimum."""
        levels = tuple(levels)
        actions: list[Action] = [("stand", i) for i in range(len(levels))]
        actions.append(("hit",))
        if self.raise_ok:
            actions.extend(("raise", i) for i, level in enumerate(levels) if level == 0)
        return actions

    def _after_split_fixed(self, strategy: Strategy, total: int, level: int) -> Action:
        """A fixed strategy's play after a split, on its first open hand (``total`` hp at stake ``level``)."""
        if self.raise_ok and level == 0 and total in strategy.raise_at:
            return ("raise", 0)
        if total >= strategy.stand_at:
            return ("stand", 0)
        return ("hit",)

    def multi_options(self, pack: Counts, open_: Staked, standing: Standing, n: int) -> Options:
        actions = self._after_split_actions(level for _, level in open_)
        return [(a, self.multi_action(pack, open_, standing, n, a)) for a in actions]

    def multi_action(self, pack: Counts, open_: Staked, standing: Standing, n: int, action: Action) -> Value:
        p = self.pack
        kind = action[0]
        if kind == "hit":
            a = b = c = d = 0
            for t, k in enumerate(pack):
                if k:
                    v = self._assign_pick(p.remove(pack, t), t, open_, standing, n)[1]
                    a += k * v[0]
                    b += k * v[1]
                    c += k * v[2]
                    d += k * v[3]
            return a, b, c, d
        i = action[1]
        assert isinstance(i, int)
        hand, level = open_[i]
        others = (*open_[:i], *open_[i + 1 :])
        if kind == "stand":
            return self.leave(pack, others, standing, n, p.score(hand[0], True), level)
        nf = self.scale(pack)
        v = self.multi(pack, (*open_[:i], (hand, 1), *open_[i + 1 :]), standing, n)
        return v[0], v[1], v[2] - nf, v[3] + nf

    def can_start_hand(self, pack: Counts, t: int, n: int) -> bool:
        """Hungarian: a drawn picture may start a new hand while every card he received is a picture."""
        return t in self.pack.pictures and n < self.max_hands and self.pack.window_open(pack)

    def assign_options(self, pack: Counts, t: int, open_: Staked, standing: Standing, n: int) -> Options:
        """The drawn card (type ``t``, already out of ``pack``) to one open hand, or starting a new hand."""
        actions: list[Action] = [("assign", i) for i in range(len(open_))]
        if self.can_start_hand(pack, t, n):
            actions.extend(("new", x) for x in self.levels)
        return [(a, self.assign_action(pack, t, open_, standing, n, a)) for a in actions]

    def assign_pick(
        self, pack: Counts, t: int, open_: Staked, standing: Standing, n: int, *, split_pack: Counts | None = None
    ) -> tuple[Action, Value]:
        """Where the drawn card goes, in a state of the real game (``split_pack`` as for :meth:`multi_pick`)."""
        if self.frozen_ok:
            assert split_pack is not None
            window = self.pack.window_open(self.pack.add(pack, t))
            return self.frozen_assign_pick(split_pack, t, self.freeze(open_), n, window)
        return self._assign_pick(pack, t, open_, standing, n)

    def _assign_pick(self, pack: Counts, t: int, open_: Staked, standing: Standing, n: int) -> tuple[Action, Value]:
        if self.approx:
            pack, standing = self.project(pack, (*open_, ((self.pack.add(self.pack.empty, t), -1), 0)), standing, True)
        strategy = self.strategy
        if strategy is None:
            return self._best(self.assign_options(pack, t, open_, standing, n))
        p = self.pack
        wanted: Action
        if strategy.split and self.can_start_hand(pack, t, n):
            wanted = ("new", 0)
        else:
            target = 0
            lowest: int | None = None
            for i, (hand, _) in enumerate(open_):
                before = p.score(hand[0], True).total_hp
                if p.score(p.add(hand[0], t), True).category != Category.BUST and (lowest is None or before < lowest):
                    lowest, target = before, i
            wanted = ("assign", target)
        return wanted, self.assign_action(pack, t, open_, standing, n, wanted)

    def assign_action(self, pack: Counts, t: int, open_: Staked, standing: Standing, n: int, action: Action) -> Value:
        p = self.pack
        nf = self.scale(pack)
        x = action[1]
        assert isinstance(x, int)
        if action[0] == "new":
            v = self.multi(pack, (*open_, ((p.add(p.empty, t), -1), x)), standing, n + 1)
            return _add_stake(v, x, nf)
        hand, level = open_[x]
        counts = p.add(hand[0], t)
        score = p.score(counts, True)
        others = (*open_[:x], *open_[x + 1 :])
        if score.category == Category.BUST or score.total_hp == 15:
            return self.leave(pack, others, standing, n, score, level)
        return self.multi(pack, (*open_[:x], ((counts, -1), level), *open_[x + 1 :]), standing, n)

    def leave(self, pack: Counts, others: Staked, standing: Standing, n: int, score: Score, level: int) -> Value:
        """A Hungarian hand leaves play with ``score``: it busts and pays now, or stands for the banker (in the
        fast model, settled now against the pack as it is, and its cards go back into the pack)."""
        if score.category == Category.BUST:
            net = settle_hand(score, 1, None, self.rules).net * self.scale(pack)
        elif self.approx:
            net = self.pack.unit(pack, score) * self.extra
        else:
            return self.multi(pack, others, _with(standing, score, level), n)
        if self.approx:
            fresh = self.open_pack(others)
            v = self.rescale(self.multi(fresh, others, (), n), fresh, pack)
        else:
            v = self.multi(pack, others, standing, n)
        return _add_win(v, level, net)

    # -- the fast model of a Hungarian split round without a wild card: every card after the split is drawn from
    # the pack as it stood at the split (``base``), and a hand is only its total. A value is scaled by
    # ``N! * N ** reach`` (``N`` the cards of ``base``): every draw divides by ``N`` and each one lowers ``reach``.

    def freeze(self, open_: Staked) -> Frozen:
        return tuple((self.pack.score(hand[0], True).total_hp, level) for hand, level in open_)

    def reach(self, open_: Frozen, n: int, window: bool) -> int:
        """More than the cards the punter can still draw: a card lowers it by its value in hp (at least 1)."""
        r = sum(16 - total for total, _ in open_)
        return r + (self.max_hands - n) * 16 if window else r

    def canon(self, total: int) -> Counts:
        """A hand of this total (without a wild card a split hand's score is its total alone): one card, or one
        card and a picture."""
        p = self.pack
        counts = p.empty
        left = total
        while left:
            t = max((t for t in range(p.types) if p.hp[t] <= left), key=lambda t: p.hp[t])
            counts = p.add(counts, t)
            left -= p.hp[t]
        return counts

    def grown(self, total: int, t: int) -> Score:
        key = (total, t)
        s = self._grown.get(key)
        if s is None:
            s = self.pack.score(self.pack.add(self.canon(total), t), True)
            self._grown[key] = s
        return s

    def frozen(self, base: Counts, open_: Frozen, n: int, window: bool) -> Value:
        if not open_:
            return ZERO
        if self.strategy is None:
            open_ = tuple(sorted(open_))
        if not window or n >= self.max_hands:  # no new hand can start: neither matters (nor does ``reach``)
            n, window = self.max_hands, False
        key = (base, open_, n, window)
        v = self._frozen.get(key)
        if v is None:
            v = self.frozen_pick(base, open_, n, window)[1]
            self._frozen[key] = v
        return v

    def frozen_pick(self, base: Counts, open_: Frozen, n: int, window: bool) -> tuple[Action, Value]:
        strategy = self.strategy
        if strategy is None:
            actions = self._after_split_actions(level for _, level in open_)
            return self._best([(a, self.frozen_action(base, open_, n, window, a)) for a in actions])
        wanted = self._after_split_fixed(strategy, *open_[0])
        return wanted, self.frozen_action(base, open_, n, window, wanted)

    def _lift(self, v: Value, base: Counts, frm: int, to: int) -> Value:
        if frm == to:
            return v
        f = sum(base) ** (to - frm)
        return v[0] * f, v[1] * f, v[2] * f, v[3] * f

    def frozen_action(self, base: Counts, open_: Frozen, n: int, window: bool, action: Action) -> Value:
        r = self.reach(open_, n, window)
        if action[0] == "hit":
            a = b = c = d = 0
            for t, k in enumerate(base):
                if k:
                    v = self.frozen_assign_pick(base, t, open_, n, window)[1]
                    a += k * v[0]
                    b += k * v[1]
                    c += k * v[2]
                    d += k * v[3]
            return a, b, c, d
        i = action[1]
        assert isinstance(i, int)
        total, level = open_[i]
        others = (*open_[:i], *open_[i + 1 :])
        if action[0] == "stand":
            return self.frozen_leave(base, others, n, window, r, self.pack.score(self.canon(total), True), level)
        scale = FACT[sum(base)] * sum(base) ** r
        v = self.frozen(base, (*open_[:i], (total, 1), *open_[i + 1 :]), n, window)
        return v[0], v[1], v[2] - scale, v[3] + scale

    def frozen_leave(
        self, base: Counts, others: Frozen, n: int, window: bool, r: int, score: Score, level: int
    ) -> Value:
        """A hand leaves play (at a node scaled with ``reach`` ``r``): it busts and pays, or stands and is settled
        against the banker drawing from ``base``."""
        scale = FACT[sum(base)] * sum(base) ** r
        if score.category == Category.BUST:
            net = settle_hand(score, 1, None, self.rules).net * scale
        else:
            net = self.pack.unit(base, score) * sum(base) ** r
        v = self._lift(self.frozen(base, others, n, window), base, self.reach(others, n, window), r)
        return _add_win(v, level, net)

    def frozen_assign_options(self, base: Counts, t: int, open_: Frozen, n: int, window: bool) -> Options:
        actions: list[Action] = [("assign", i) for i in range(len(open_))]
        if t in self.pack.pictures and n < self.max_hands and window:
            actions.extend(("new", x) for x in self.levels)
        return [(a, self.frozen_assign(base, t, open_, n, window, a)) for a in actions]

    def frozen_assign_pick(self, base: Counts, t: int, open_: Frozen, n: int, window: bool) -> tuple[Action, Value]:
        """The drawn card (type ``t``) to an open hand or a new one; the value scaled with ``reach`` one less."""
        strategy = self.strategy
        if strategy is None:
            return self._best(self.frozen_assign_options(base, t, open_, n, window))
        wanted: Action
        if strategy.split and t in self.pack.pictures and n < self.max_hands and window:
            wanted = ("new", 0)
        else:
            target = 0
            lowest: int | None = None
            for i, (total, _) in enumerate(open_):
                if self.grown(total, t).category != Category.BUST and (lowest is None or total < lowest):
                    lowest, target = total, i
            wanted = ("assign", target)
        return wanted, self.frozen_assign(base, t, open_, n, window, wanted)

    def frozen_assign(self, base: Counts, t: int, open_: Frozen, n: int, window: bool, action: Action) -> Value:
        r = self.reach(open_, n, window) - 1
        still = window and t in self.pack.pictures
        x = action[1]
        assert isinstance(x, int)
        if action[0] == "new":
            after = (*open_, (self.pack.hp[t], x))
            v = self._lift(self.frozen(base, after, n + 1, still), base, self.reach(after, n + 1, still), r)
            return _add_stake(v, x, FACT[sum(base)] * sum(base) ** r)
        total, level = open_[x]
        score = self.grown(total, t)
        others = (*open_[:x], *open_[x + 1 :])
        if score.category == Category.BUST or score.total_hp == 15:
            return self.frozen_leave(base, others, n, still, r, score, level)
        after = (*open_[:x], (score.total_hp, level), *open_[x + 1 :])
        return self._lift(self.frozen(base, after, n, still), base, self.reach(after, n, still), r)


def _add_stake(v: Value, level: int, amount: int) -> Value:
    return (v[0], v[1], v[2] + amount, v[3]) if level == 0 else (v[0], v[1], v[2], v[3] + amount)


def _add_win(v: Value, level: int, amount: int) -> Value:
    return (v[0] + amount, v[1], v[2], v[3]) if level == 0 else (v[0], v[1] + amount, v[2], v[3])
