"""Every worked hand of spec/scenarios.yaml, loaded from that file, must come out exactly as written."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
import yaml

from rules import Assign as AssignCmd
from rules import (
    BankerTurnSkipped,
    BankerTurnStarted,
    CardDealt,
    CardTurnedUp,
    DomainError,
    Event,
    HandBusted,
    HandMadePairOfSevens,
    HandMadeSevenHalf,
    HandSettled,
    Hit,
    HitFaceDown,
    PlaceBet,
    Raise,
    SitIn,
    Split,
    Stand,
    Viewer,
    fold,
    view,
)
from tests.rules.rules_helpers import SCENARIOS, Table, as_json

SPEC: dict[str, Any] = yaml.safe_load(SCENARIOS.read_text())
HANDS: list[dict[str, Any]] = SPEC["hands"]
END = "end"
#: Where each rejected action of the file is tried, by its free-text "when": the index of the player's
#: action before which it is sent, or END (after his last action).
REJECTION_POINTS: dict[str, int | str] = {
    "before first hit": 0,
    "after reaching 7.5": END,
    "holding Je+No": 1,
    "holding Jc+Ab": 1,
    "after receiving Ke (a number card 5c already received)": 3,
    "betting after looking at the first card": 0,
}
STATUS = {  # scenario status -> (state status, category or None)
    "stood": ("stood", None),
    "bust": ("bust", "bust"),
    "seven_half": ("closed", "seven_half"),
    "reale": ("closed", "reale"),
    "pair7": ("settled", "pair7"),
}
AUTO = {
    "bust": (HandBusted, None),
    "7.5": (HandMadeSevenHalf, "seven_half"),
    "reale": (HandMadeSevenHalf, "reale"),
    "pair7": (HandMadePairOfSevens, None),
}


@dataclass
class Played:
    table: Table
    start_events: int
    settled: Any
    settlement: HandSettled
    banker_view: dict[str, Any] | None
    rejections: list[tuple[dict[str, Any], DomainError | None, bool]] = field(default_factory=list)


def _parse(card: str) -> tuple[str, bool | None]:
    code, _, mark = card.partition(":")
    return code, {"u": True, "d": False}.get(mark)


def _labels(sc: dict[str, Any]) -> dict[str, tuple[str, int]]:
    labels: dict[str, tuple[str, int]] = {}
    for player, spec in sc["hands"].items():
        labels[player] = (player, 0)
        for i, label in enumerate((spec.get("split_hands") or {}).keys()):
            labels[label] = (player, i)
    return labels


def _split_action(text: str, labels: dict[str, tuple[str, int]]) -> tuple[int | None, str]:
    head, sep, rest = text.partition(":")
    if sep and head in labels:
        return labels[head][1], rest
    return None, text


class Runner:
    def __init__(self, sc: dict[str, Any], toggles: dict[str, Any]) -> None:
        self.sc = sc
        table = sc.get("table") or {}
        self.t = Table(
            sc["preset"],
            players=["B", *sc["seats"]],
            banker="B",
            overrides=toggles,
            stock=sc["stock"],
            min_bet=table.get("min_bet", 1),
            max_bet=table.get("max_bet", 100),
            fixed_stake=table.get("fixed_stake"),
        )
        self.labels = _labels(sc)
        self.rejections: list[tuple[dict[str, Any], DomainError | None, bool]] = []
        self.banker_view: dict[str, Any] | None = None

    def _command(self, who: str, action: str, hand: int | None) -> list[Event]:
        name, _, arg = action.partition(":")
        if name in ("hit_up", "way_b"):
            return self.t.when(Hit, player_id=who, hand=hand)
        if name in ("hit_down", "way_a"):
            return self.t.when(HitFaceDown, player_id=who, hand=hand)
        if name == "stand":
            return self.t.when(Stand, player_id=who, hand=hand)
        if name in ("split", "new_hand"):
            return self.t.when(Split, player_id=who, amount=int(arg))
        if name == "raise":
            return self.t.when(Raise, player_id=who, amount=int(arg), hand=hand)
        if name == "bet":
            return self.t.when(PlaceBet, player_id=who, amount=int(arg))
        raise AssertionError(f"unknown action {action!r}")

    def _reject(self, who: str, index: int | str) -> None:
        for r in self.sc.get("rejected") or []:
            if r["who"] == who and REJECTION_POINTS[r["when"]] == index:
                name, _, arg = r["action"].partition(":")
                before = self.t.state
                command = {"hit_down": HitFaceDown, "hit_up": Hit, "stand": Stand}.get(name)
                try:
                    if command is not None:
                        self.t.refused(command, player_id=who)
                    elif name in ("split", "new_hand"):
                        self.t.refused(Split, player_id=who, amount=int(arg))
                    elif name == "raise":
                        self.t.refused(Raise, player_id=who, amount=int(arg))
                    elif name == "bet":
                        self.t.refused(PlaceBet, player_id=who, amount=int(arg))
                    else:
                        raise AssertionError(f"unknown rejected action {r['action']!r}")
                    self.rejections.append((r, None, self.t.state is before))
                except AssertionError as failure:
                    self.rejections.append((r, DomainError(str(failure)), False))

    def _check_auto(self, who: str, kind: str, hand: int | None) -> None:
        event_type, category = AUTO[kind]
        banker = who == "B"
        found = [
            e
            for e in self.t.last
            if isinstance(e, event_type)
            and e.banker == banker
            and (banker or (e.seat == self.t.seat(who) and (hand is None or e.hand == hand)))
            and (category is None or e.category == category)
        ]
        assert found, f"{who}: expected the engine to do auto:{kind} by itself"

    def _act(self, who: str, action: Any) -> None:
        if isinstance(action, dict):
            self.t.when(Hit, player_id=who)
            assert self.t.hand.pending == (self.t.seat(who), action["draw"]), "the drawn card"
            self.t.when(AssignCmd, player_id=who, hand=self.labels[action["to"]][1])
            return
        text = action.split(" (")[0].strip()
        for part in text.split(" + "):
            hand, rest = _split_action(part.strip(), self.labels)
            if rest.startswith("auto:"):
                self._check_auto(who, rest[5:], hand)
            else:
                self._command(who, rest, hand)

    def _bet(self, who: str, spec: dict[str, Any]) -> None:
        actions = spec["actions"]
        explicit = [i for i, a in enumerate(actions) if isinstance(a, str) and a.startswith("bet:")]
        if explicit:
            self._reject(who, explicit[0])
            self._command(who, actions[explicit[0]], None)
        else:
            self.t.when(PlaceBet, player_id=who, amount=spec["bet"])

    def play(self) -> Played:
        t, sc = self.t, self.sc
        start = len(t.events)
        t.when(SitIn, player_id="B")  # the banker says "ready": the hand opens
        timing = t.config.rules.bet_timing
        punters = sc["seats"]
        if timing != "at_turn_after_peek":
            for p in punters:
                self._bet(p, sc["hands"][p])
        for p in punters:
            spec = sc["hands"][p]
            if timing == "at_turn_after_peek":
                self._bet(p, spec)
            for i, action in enumerate(spec["actions"]):
                if isinstance(action, str) and action.startswith("bet:"):
                    continue
                self._reject(p, i)
                self._act(p, action)
            self._reject(p, END)
        if t.hand.phase == "banker":
            self.banker_view = as_json(view(t.state, Viewer.player("B")))
        for action in sc["hands"]["B"]["actions"]:
            if action == "reveal":
                started = [e for e in t.events[start:] if isinstance(e, BankerTurnStarted)]
                turned = [e for e in t.events[start:] if isinstance(e, CardTurnedUp) and e.banker]
                assert started and turned, "the banker's card is turned up at his turn"
            elif action == "skip":
                assert any(isinstance(e, BankerTurnSkipped) for e in t.events[start:])
            elif action.startswith("auto:"):
                self._check_auto("B", action[5:], None)
            else:
                self._command("B", action, None)
        settlement = next(e for e in t.events[start:] if isinstance(e, HandSettled))
        index = t.events.index(settlement)
        return Played(t, start, fold(t.events[: index + 1]), settlement, self.banker_view, self.rejections)


def _play(sc: dict[str, Any], extra: dict[str, Any] | None = None) -> Played:
    toggles = dict(sc.get("toggles") or {})
    toggles.update(extra or {})
    return Runner(sc, toggles).play()


def _result(played: Played, sc: dict[str, Any], label: str) -> Any:
    player, index = _labels(sc)[label]
    seat = played.table.seat(player)
    return next(r for r in played.settlement.results if r.seat == seat and r.hand == index)


IDS = [sc["id"] for sc in HANDS]


@pytest.fixture(scope="module")
def played() -> dict[str, Played]:
    return {sc["id"]: _play(sc) for sc in HANDS}


def test_the_scenario_file_has_hands_and_every_rejection_is_located() -> None:
    assert len(HANDS) >= 30
    for sc in HANDS:
        for r in sc.get("rejected") or []:
            assert r["when"] in REJECTION_POINTS, f"{sc['id']}: no point for rejection {r['when']!r}"


@pytest.mark.parametrize("sc", HANDS, ids=IDS)
def test_scenario_results_match(sc: dict[str, Any], played: dict[str, Played]) -> None:
    p = played[sc["id"]]
    for label, expected in sc["expect"].items():
        r = _result(p, sc, label)
        assert r.outcome == expected["result"], f"{label} result"
        assert r.tie == expected.get("tie", False), f"{label} tie"
        assert r.multiplier == expected["multiplier"], f"{label} multiplier"
        assert r.net == expected["net"], f"{label} net"
    assert p.settlement.banker_net == -sum(r.net for r in p.settlement.results)
    assert len(p.settlement.results) == len(sc["expect"])


@pytest.mark.parametrize("sc", HANDS, ids=IDS)
def test_scenario_next_banker_matches(sc: dict[str, Any], played: dict[str, Played]) -> None:
    p = played[sc["id"]]
    assert p.settlement.next_banker_seat == p.table.seat(sc["next_banker"])


def _check_punter_hand(p: Played, sc: dict[str, Any], label: str, spec: dict[str, Any]) -> None:
    player, index = _labels(sc)[label]
    hand = p.settled.hand.find(p.table.seat(player), index)
    assert hand is not None, label
    codes = [_parse(c) for c in spec["cards"]]
    assert list(hand.cards) == [c for c, _ in codes], f"{label} cards"
    assert list(hand.face_up) == [up for _, up in codes], f"{label} face up/down"
    result = _result(p, sc, label)
    assert result.total_half_points == spec["total_hp"], f"{label} total"
    status, category = STATUS[spec["status"]]
    assert hand.status == status, f"{label} status"
    if category is not None:
        assert result.category == category, f"{label} category"
    if "matta_value_hp" in spec:
        assert result.matta_value == spec["matta_value_hp"], f"{label} matta value"
    assert hand.stake == spec.get("final_stake", spec["bet"]), f"{label} stake"


@pytest.mark.parametrize("sc", HANDS, ids=IDS)
def test_scenario_hands_cards_totals_and_statuses_match(sc: dict[str, Any], played: dict[str, Played]) -> None:
    p = played[sc["id"]]
    for player, spec in sc["hands"].items():
        if player == "B":
            continue
        if "split_hands" in spec:
            for label, sub in spec["split_hands"].items():
                _check_punter_hand(p, sc, label, sub)
        else:
            _check_punter_hand(p, sc, player, spec)


@pytest.mark.parametrize("sc", HANDS, ids=IDS)
def test_scenario_banker_hand_matches(sc: dict[str, Any], played: dict[str, Played]) -> None:
    p = played[sc["id"]]
    spec = sc["hands"]["B"]
    banker = p.settled.hand.banker
    codes = [_parse(c) for c in spec["cards"]]
    assert list(banker.cards) == [c for c, _ in codes]
    dealt = [e for e in p.table.events[p.start_events :] if isinstance(e, CardDealt) and e.banker and e.number == 1]
    assert [e.face_up for e in dealt] == [up for _, up in codes], "banker cards dealt up/down"
    assert p.settlement.banker_total_half_points == spec["total_hp"]
    if spec["status"] == "not_played":
        assert not banker.played
        assert banker.face_up == (False,)
    else:
        assert banker.played
        status, category = STATUS[spec["status"]]
        assert banker.status == ("closed" if status == "settled" else status)
        if category is not None:
            assert p.settlement.banker_category == category
    if "matta_value_hp" in spec:
        assert p.settlement.banker_matta_value == spec["matta_value_hp"]


@pytest.mark.parametrize(
    "sc", [s for s in HANDS if s.get("rejected")], ids=[s["id"] for s in HANDS if s.get("rejected")]
)
def test_scenario_rejected_actions_are_refused_without_events(sc: dict[str, Any], played: dict[str, Played]) -> None:
    p = played[sc["id"]]
    assert len(p.rejections) == len(sc["rejected"])
    for r, failure, unchanged in p.rejections:
        assert failure is None, f"{r}: {failure}"
        assert unchanged, f"{r}: the state changed"


@pytest.mark.parametrize(
    "sc", [s for s in HANDS if s.get("banker_view")], ids=[s["id"] for s in HANDS if s.get("banker_view")]
)
def test_scenario_banker_view_hides_live_face_down_cards(sc: dict[str, Any], played: dict[str, Played]) -> None:
    p = played[sc["id"]]
    assert p.banker_view is not None
    hands = {part["seat"]: part["hands"][0] for part in p.banker_view["hand"]["participants"]}
    for player, cards in sc["banker_view"].items():
        shown = [c["code"] if c["code"] is not None else "hidden" for c in hands[p.table.seat(player)]["cards"]]
        assert shown == cards, player


ALTS = [(sc, i, alt) for sc in HANDS for i, alt in enumerate(sc.get("alt") or [])]


@pytest.mark.parametrize(("sc", "i", "alt"), ALTS, ids=[f"{sc['id']}-alt{i}" for sc, i, _ in ALTS])
def test_scenario_alt_toggles_change_only_the_listed_fields(sc: dict[str, Any], i: int, alt: dict[str, Any]) -> None:
    p = _play(sc, alt["toggles"])
    for label, fields in alt.items():
        if label in ("toggles", "next_banker"):
            continue
        r = _result(p, sc, label)
        expected = {**sc["expect"][label], **fields}
        assert r.outcome == expected["result"]
        assert r.multiplier == expected["multiplier"]
        assert r.net == expected["net"]
        assert r.tie == expected.get("tie", False)
        if "total_hp" in fields:
            assert r.total_half_points == fields["total_hp"]
        if "matta_value_hp" in fields:
            assert r.matta_value == fields["matta_value_hp"]
    if "next_banker" in alt:
        assert p.settlement.next_banker_seat == p.table.seat(alt["next_banker"])


@pytest.mark.parametrize("sc", HANDS, ids=IDS)
def test_scenario_folding_the_events_gives_the_state_reached_step_by_step(
    sc: dict[str, Any], played: dict[str, Played]
) -> None:
    p = played[sc["id"]]
    assert fold(p.table.events) == p.table.state
