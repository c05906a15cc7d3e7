"""The exact engine's best play as a simulated punter (issue #41): ``--punter best`` in ``python -m lab simulate``
and in ``python -m lab worth-check``.

:class:`BestPlay` reads the table state the way the punter sees it (his own cards, stakes and hands; never the
banker's face-down card), rebuilds the engine's state from it (:mod:`gamemath.worth.play`: the remaining pack,
the hand being played, the hands waiting and standing) and sends the command the engine's policy picks: the stake
after the peek (or before the deal), raises, splits and their stakes, hits, stands and Hungarian assigns. The
rules core plays every command, so the simulation checks the engine's figures against the real game.
"""

from __future__ import annotations

from collections.abc import Sequence

from gamemath.worth import Solver, pack_of
from gamemath.worth.pack import Counts, Hand
from gamemath.worth.play import Staked, Standing
from rules import (
    Assign,
    Command,
    HandState,
    HandStatus,
    Hit,
    PlaceBet,
    PunterHand,
    Raise,
    Rules,
    Split,
    Stand,
    WaitKind,
)
from rules.state import Awaiting


class BestPlay:
    """One punter's best play at a table with stakes from ``low`` to ``high`` (the engine's :class:`Solver`)."""

    def __init__(self, rules: Rules, low: int, high: int) -> None:
        self.rules = rules
        self.low = low
        self.high = high
        self.pack = pack_of(rules)
        self.solver = Solver(self.pack, low, high)
        self.types = {code: t for t, codes in enumerate(self.pack.codes) for code in codes}
        self._seen: dict[tuple[object, ...], Command] = {}
        #: The pack as it stood at the punter's first Hungarian split, by hand number (the engine's fast model
        #: draws from it after the split).
        self._split_pack: dict[int, Counts] = {}

    def amount(self, level: object) -> int:
        return self.high if level == 1 else self.low

    def level(self, stake: int) -> int:
        return 1 if stake == self.high and self.high > self.low else 0

    def counts(self, cards: Sequence[str]) -> Counts:
        out = [0] * self.pack.types
        for code in cards:
            out[self.types[code]] += 1
        return tuple(out)

    def hand(self, cards: Sequence[str]) -> Hand:
        return self.pack.hand(self.counts(cards), self.types[cards[-1]])

    def remaining(self, mine: Sequence[PunterHand], extra: Sequence[str] = ()) -> Counts:
        seen = self.counts([c for h in mine for c in h.cards] + list(extra))
        return tuple(f - s for f, s in zip(self.pack.full, seen, strict=True))

    def standing(self, mine: Sequence[PunterHand], split: bool) -> Standing:
        out = []
        for h in mine:
            if h.status in (HandStatus.STOOD, HandStatus.CLOSED) and h.stake:
                s = self.pack.score(self.counts(h.cards), split)
                out.append((s, self.level(h.stake)))
        return tuple(sorted(out, key=lambda x: (x[0].category, x[0].total_hp, x[1])))

    # -- decisions ---------------------------------------------------------------------------------------------

    def before_deal(self) -> int:
        return self.amount(self.solver.before_deal_pick()[0][1])

    def command(self, hand: HandState, aw: Awaiting, pid: str) -> Command:
        """The command for the punter's decision the table waits on (remembered by what he sees)."""
        key = (
            self._split_pack.get(hand.number),
            aw.kind,
            aw.hand,
            hand.pending,
            tuple((h.hand_index, h.cards, h.stake, h.status) for h in hand.punters if h.seat == aw.seat),
        )
        command = self._seen.get(key)
        if command is None:
            command = self._command(hand, aw, pid)
            self._seen[key] = command
        if isinstance(command, Split) and self.rules.split_mode == "hungarian" and aw.seat not in hand.split_seats:
            assert aw.seat is not None
            self._split_pack = {hand.number: self.remaining(hand.hands_of(aw.seat))}
        return command

    def _command(self, hand: HandState, aw: Awaiting, pid: str) -> Command:
        seat = aw.seat
        assert seat is not None
        mine = sorted((h for h in hand.punters if h.seat == seat), key=lambda h: h.hand_index)
        if aw.kind == WaitKind.OWED_BET:
            first = mine[0]
            action = self.solver.bet_pick(self.remaining(mine), self.hand(first.cards))[0]
            return PlaceBet(player_id=pid, amount=self.amount(action[1]))
        split = seat in hand.split_seats
        standing = self.standing(mine, split)
        n = len(mine)
        multi = split and self.rules.split_mode == "hungarian"
        split_pack = self._split_pack.get(hand.number)
        if multi:
            open_hands = [h for h in mine if h.status == HandStatus.PLAYING]
            open_: Staked = tuple(((self.counts(h.cards), -1), self.level(h.stake)) for h in open_hands)
            if aw.kind == WaitKind.ASSIGN:
                assert hand.pending is not None
                card = hand.pending[1]
                pack = self.remaining(mine, (card,))
                action = self.solver.assign_pick(pack, self.types[card], open_, standing, n, split_pack=split_pack)[0]
                if action[0] == "new":
                    return Split(player_id=pid, amount=self.amount(action[1]), hand=None)
                index = action[1]
                assert isinstance(index, int)
                return Assign(player_id=pid, hand=open_hands[index].hand_index)
            action = self.solver.multi_pick(self.remaining(mine), open_, standing, n, split_pack=split_pack)[0]
            if action[0] == "hit":
                return Hit(player_id=pid, hand=open_hands[0].hand_index)
            index = action[1]
            assert isinstance(index, int)
            target = open_hands[index]
            if action[0] == "stand":
                return Stand(player_id=pid, hand=target.hand_index)
            return Raise(player_id=pid, amount=self.high - target.stake, hand=target.hand_index)
        current = next(h for h in mine if h.hand_index == aw.hand)
        pending: Staked = tuple(
            (self.hand(h.cards), self.level(h.stake))
            for h in mine
            if h.status == HandStatus.WAITING and h.hand_index != current.hand_index
        )
        action = self.solver.turn_pick(
            self.remaining(mine), self.hand(current.cards), self.level(current.stake), pending, standing, n, split
        )[0]
        index = current.hand_index if split else None
        kind = action[0]
        if kind == "stand":
            return Stand(player_id=pid, hand=index)
        if kind == "hit":
            return Hit(player_id=pid, hand=index)
        if kind == "raise":
            return Raise(player_id=pid, amount=self.high - current.stake, hand=index)
        return Split(player_id=pid, amount=self.amount(action[1]), hand=index)
