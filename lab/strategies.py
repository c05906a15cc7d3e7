"""How the simulated players decide: punter strategies and player-banker strategies.

A strategy only chooses among the commands the rules core offers; the core decides what they do. Strategies
are small frozen dataclasses (picklable, so every worker process gets the same one) parsed from a name or a
``stand:...`` spec (see :data:`PUNTER_STRATEGIES`, :data:`BANKER_STRATEGIES` and docs/house-edge.md).

Totals are half-points (hp) as everywhere in the core: 10 hp = 5 points, 15 hp = 7½.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rules import PunterHand, Rules, evaluate, is_picture


@dataclass(frozen=True, slots=True)
class PunterStrategy:
    """A punter stands at or above a threshold (hp) that may depend on how many cards the hand holds.

    ``thresholds[k]`` applies to a hand of ``k + 1`` cards; the last one applies to longer hands too.
    ``split``: split whenever the rules allow it (Spanish pairs of pictures, Hungarian picture windows).
    Simulated punters always bet the table minimum (or the fixed stake S) and never raise, so the edge is per
    unit staked with flat stakes.
    """

    name: str
    thresholds: tuple[int, ...]
    split: bool = True

    def stands_on(self, total_hp: int, cards: int) -> bool:
        """True if a hand of ``cards`` cards totalling ``total_hp`` stands."""
        t = self.thresholds
        return total_hp >= t[min(cards, len(t)) - 1]

    def describe(self) -> str:
        """Plain words for tables and plots."""
        if len(set(self.thresholds)) == 1:
            text = f"stand at {_points(self.thresholds[0])} or more"
        else:
            last = len(self.thresholds)
            parts = [
                f"{_points(t)} with {i + 1}{'+' if i + 1 == last else ''} card{'' if i == 0 and last > 1 else 's'}"
                for i, t in enumerate(self.thresholds)
            ]
            text = "stand at " + ", ".join(parts)
        return text + ("" if self.split else ", never split")


@dataclass(frozen=True, slots=True)
class BankerStrategy:
    """A player banker's play: ``stand`` at or above ``threshold`` hp, like the house rule, or ``visible``:
    the same, and above the threshold he also draws while the stake on unsettled punter hands whose face-up
    cards alone already beat his total (a face-down card is worth at least ½) exceeds the stake on the other
    unsettled hands. He sees only what a live banker sees: face-up cards and hands already shown."""

    name: str
    threshold: int = 10
    visible: bool = False

    def describe(self) -> str:
        text = f"stand at {_points(self.threshold)} or more"
        return text + (", draw on when the shown cards already beat him" if self.visible else "")


def _points(hp: int) -> str:
    whole, half = divmod(hp, 2)
    return f"{whole}½" if half else str(whole)


#: Named punter strategies (RULES.md totals in hp; docs/house-edge.md lists them).
PUNTER_STRATEGIES: dict[str, PunterStrategy] = {
    "timid": PunterStrategy("timid", (8,)),
    "standard": PunterStrategy("standard", (10,)),
    "bold": PunterStrategy("bold", (11,)),
    "daring": PunterStrategy("daring", (12,)),
    "reckless": PunterStrategy("reckless", (13,)),
    "counter": PunterStrategy("counter", (10, 10, 8)),
}
DEFAULT_PUNTER = "standard"

#: Named player-banker strategies.
BANKER_STRATEGIES: dict[str, BankerStrategy] = {
    "house": BankerStrategy("house", 10),
    "cautious": BankerStrategy("cautious", 8),
    "greedy": BankerStrategy("greedy", 12),
    "watcher": BankerStrategy("watcher", 10, visible=True),
}
DEFAULT_BANKER = "watcher"


def _hp_list(text: str) -> tuple[int, ...]:
    values = tuple(int(part) for part in text.split(","))
    if not values or any(not 1 <= v <= 16 for v in values):
        raise ValueError("thresholds are half-points from 1 to 16 (16: never stand below 7½)")
    return values


def punter_strategy(spec: str) -> PunterStrategy:
    """A named strategy, or ``stand:H[,H2,...]`` (hp per card count), optionally with ``:nosplit``."""
    if spec in PUNTER_STRATEGIES:
        return PUNTER_STRATEGIES[spec]
    parts = spec.split(":")
    if parts[0] != "stand" or len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] != "nosplit"):
        names = ", ".join(PUNTER_STRATEGIES)
        raise ValueError(f"unknown punter strategy {spec!r}: use one of {names} or stand:H[,H...][:nosplit]")
    return PunterStrategy(spec, _hp_list(parts[1]), split=len(parts) == 2)


def banker_strategy(spec: str) -> BankerStrategy:
    """A named player-banker strategy, or ``stand:H`` / ``visible:H`` (hp)."""
    if spec in BANKER_STRATEGIES:
        return BANKER_STRATEGIES[spec]
    kind, _, value = spec.partition(":")
    if kind not in ("stand", "visible") or not value:
        names = ", ".join(BANKER_STRATEGIES)
        raise ValueError(f"unknown banker strategy {spec!r}: use one of {names}, stand:H or visible:H")
    (threshold,) = _hp_list(value)
    return BankerStrategy(spec, threshold, visible=kind == "visible")


# -- decisions ------------------------------------------------------------------------------------------------


def can_split(hand_cards: Sequence[str], own_hands: int, rules: Rules, all_pictures: bool) -> bool:
    """Whether the rules let this hand split now (the core refuses anything else anyway)."""
    if rules.split_mode == "spanish":
        return (
            len(hand_cards) == 2
            and is_picture(hand_cards[0])
            and is_picture(hand_cards[1])
            and (own_hands < rules.max_hands_per_punter)
        )
    if rules.split_mode == "hungarian":
        return own_hands == 1 and len(hand_cards) >= 2 and all_pictures and own_hands < rules.max_hands_per_punter
    return False


def banker_draws(
    strategy: BankerStrategy, banker_cards: tuple[str, ...], punters: Sequence[PunterHand], rules: Rules
) -> bool:
    """The player banker's decision: True to draw a card."""
    total = evaluate(banker_cards, rules).total_hp
    if total < strategy.threshold:
        return True
    if not strategy.visible:
        return False
    beaten = other = 0
    for h in punters:
        if h.status not in ("stood", "closed") or h.stake == 0:
            continue
        if h.shown and h.total_hp is not None:
            shown_total = h.total_hp  # a hand shown at 7½ (or all face up): its total is public
        else:
            up = tuple(c for c, face_up in zip(h.cards, h.face_up, strict=True) if face_up)
            shown_total = evaluate(up, rules).total_hp + 1 if up else 1  # the hidden card is worth at least ½
        if shown_total > total:
            beaten += h.stake
        else:
            other += h.stake
    return beaten > other
