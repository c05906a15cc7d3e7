"""Property tests over random tables of every preset with random play (hypothesis)."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import (
    HAND_ACTIONS,
    HOUSE,
    ActionAwaited,
    Assign,
    BetPlaced,
    CardDealt,
    Context,
    DomainError,
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
    Viewer,
    command_from_json,
    command_to_json,
    context_from_json,
    context_to_json,
    event_from_json,
    event_to_json,
    evolve,
    fold,
    handle,
    initial_state,
    last_hand_view,
    legal_hands,
    view,
    view_event,
)
from tests.rules.rules_helpers import apply_ledger, as_json
from tests.rules.rules_random_play import PRESETS, RandomTable, Witness, escrow_after

PROPERTY = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
LIGHT = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
tables = st.tuples(
    st.sampled_from(PRESETS),
    st.sampled_from(["player", "house"]),
    st.integers(1, 5),
    st.randoms(use_true_random=False),
    st.booleans(),
)


def _play(
    spec: tuple[str, str, int, random.Random, bool], steps: int = 70, *, track_legal: bool = False, rig: bool = True
) -> RandomTable:
    """Random play; with ``rig`` (and the drawn flag) hands deal pictures and sevens first (test-only seam),
    so splits, Hungarian assignments, reales and pairs of sevens come up often."""
    preset, bank, punters, rng, pictures = spec
    table = RandomTable(rng, preset, bank, track_legal=track_legal, rig_pictures=rig and pictures)
    table.setup(punters)
    for _ in table.run(steps):
        pass
    return table


@PROPERTY
@given(tables)
def test_chips_are_conserved_and_escrow_is_empty_after_every_settlement(spec: Any) -> None:
    table = _play(spec)
    escrow = 0
    for step in table.steps:
        for event in step.events:
            escrow = escrow_after([event], escrow)
            if isinstance(event, HandSettled):
                assert escrow == 0
                assert event.banker_net == -sum(r.net for r in event.results)
                assert all(amount >= 0 for amount in event.payouts.values())
        assert all(amount >= 0 for party, amount in table.wallets.items() if party != HOUSE or table.house_funded)
    house_start = 0  # an unlimited house bank has no wallet: its balance is what it won or lost
    assert sum(table.wallets.values()) + escrow == table.deposited + house_start


@PROPERTY
@given(tables)
def test_no_settlement_exceeds_the_reserve_taken_for_its_stake(spec: Any) -> None:
    table = _play(spec)
    for step in table.steps:
        state = step.before
        for event in step.events:
            if isinstance(event, HandSettled):
                assert state.hand is not None
                for r in event.results:
                    h = state.hand.find(r.seat, r.hand)
                    assert h is not None and h.stake == r.bet
                    assert -r.net <= h.punter_reserve
                    assert r.net <= h.banker_reserve
                    multiplier = state.config.rules if state.config else None
                    assert multiplier is not None
                    assert h.punter_reserve == r.bet * multiplier.punter_loss_multiplier
                    assert h.banker_reserve == r.bet * multiplier.banker_loss_multiplier
                reserved = sum(h.punter_reserve + h.banker_reserve for h in state.hand.punters)
                assert sum(event.payouts.values()) == reserved
            state = evolve(state, event)


@PROPERTY
@given(tables)
def test_folding_the_events_equals_the_state_reached_step_by_step(spec: Any) -> None:
    table = _play(spec, rig=False)
    state = initial_state()
    for step in table.steps:
        if step.accepted:
            state = fold(step.events, state)
            assert state == step.after
            assert state.version == step.before.version + len(step.events)
        else:
            assert step.after is step.before
    assert fold(table.events) == table.state


def _variants(name: str, pid: str) -> list[Any]:
    """Arguments to try, chosen without looking at legal.py: some accept whenever the action is legal."""
    amounts = [1, 5, 10, 20, 25, 50]
    hands: list[int | None] = [None, 0, 1, 2, 3]
    makers: dict[str, Any] = {
        "sit_down": lambda: [SitDown(player_id=pid, username=pid)],
        "leave": lambda: [LeaveSeat(player_id=pid)],
        "bet": lambda: [PlaceBet(player_id=pid, amount=a) for a in amounts],
        "hit": lambda: [Hit(player_id=pid, hand=h) for h in hands],
        "hit_face_down": lambda: [HitFaceDown(player_id=pid, hand=h) for h in hands],
        "stand": lambda: [Stand(player_id=pid, hand=h) for h in hands],
        "raise": lambda: [Raise(player_id=pid, amount=a, hand=h) for a in (1, 5) for h in hands],
        "split": lambda: [Split(player_id=pid, amount=a, hand=h) for a in (None, 5, 10, 20) for h in hands],
        "assign": lambda: [Assign(player_id=pid, hand=h) for h in range(4)],
        "sit_out": lambda: [SitOut(player_id=pid)],
        "sit_in": lambda: [SitIn(player_id=pid)],
        "set_stake": lambda: [SetStake(player_id=pid, amount=a) for a in amounts],
        "retire_bank": lambda: [RetireBank(player_id=pid)],
    }
    return list(makers[name]())


def _accepts(command: Any, state: Any, context: Context) -> bool:
    try:
        handle(command, state, context)
    except DomainError:
        return False
    return True


@LIGHT
@given(tables)
def test_legal_actions_are_exactly_what_decide_accepts(spec: Any) -> None:
    table = _play(spec, steps=45, track_legal=True)
    for step in table.steps:
        pid = getattr(step.command, "player_id", None)
        if not isinstance(pid, str):
            continue
        name = {
            SitDown: "sit_down",
            LeaveSeat: "leave",
            PlaceBet: "bet",
            Hit: "hit",
            HitFaceDown: "hit_face_down",
            Stand: "stand",
            Raise: "raise",
            Split: "split",
            Assign: "assign",
            SitOut: "sit_out",
            SitIn: "sit_in",
            SetStake: "set_stake",
            RetireBank: "retire_bank",
        }.get(type(step.command))
        if name is None:
            continue
        if step.accepted:
            assert name in step.legal_before, f"{name} accepted but not offered"
        ctx = step.context
        for offered in step.legal_before:
            tries = _variants(offered, pid)
            fixed = [x for x in (step.before.stake, getattr(step.before.hand, "stake", None)) if x is not None]
            if offered == "bet":  # under bank_fixed the stake is exactly S, which set_stake may have made any amount
                tries += [PlaceBet(player_id=pid, amount=amount) for amount in fixed]
            assert any(_accepts(c, step.before, ctx) for c in tries), f"{offered} offered, refused"


@LIGHT
@given(tables)
def test_legal_hands_lists_exactly_the_own_hand_indexes_decide_accepts(spec: Any) -> None:
    table = _play(spec, steps=45, track_legal=True)
    for step in table.steps:
        pid = getattr(step.command, "player_id", None)
        if not isinstance(pid, str) or not HAND_ACTIONS.intersection(step.legal_before):
            continue
        ctx = step.context
        listed = legal_hands(step.before, pid, ctx.wallets)
        assert set(listed) <= HAND_ACTIONS & set(step.legal_before)
        seat = step.before.seat_of(pid)
        hand = step.before.hand
        own = sorted({h.hand_index for h in hand.punters if h.seat == seat.seat}) if seat and hand else []
        for name in HAND_ACTIONS & set(step.legal_before):
            variants = _variants(name, pid)
            for index in listed.get(name, []):
                accepted = any(_accepts(c, step.before, ctx) for c in variants if c.hand == index)
                assert accepted, f"{name} {index} refused"
            for index in own:
                if any(_accepts(c, step.before, ctx) for c in variants if c.hand == index):
                    assert index in listed.get(name, []), f"{name} accepts hand {index}, not listed"


@LIGHT
@given(tables)
def test_last_hand_is_always_the_latest_ended_hand_with_its_settled_results(spec: Any) -> None:
    table = _play(spec, steps=45)
    settled: dict[int, HandSettled] = {}
    for step in table.steps:
        settled.update({e.number: e for e in step.events if isinstance(e, HandSettled)})
        last = as_json(last_hand_view(step.after))
        if last is None:
            assert step.after.settled_through == 0
            continue
        assert last["number"] == step.after.settled_through
        if last["status"] == "settled":
            results = settled[last["number"]].results
            assert [(r["seat"], r["hand"], r["outcome"], r["net"]) for r in last["results"]] == [
                (r.seat, r.hand, r.outcome, r.net) for r in results
            ]
            assert all(r["cards"] for r in last["results"])


def _visible_codes(view_dict: dict[str, Any]) -> set[str]:
    hand = view_dict.get("hand")
    if not hand:
        return set()
    codes = {c["code"] for p in hand["participants"] for h in p["hands"] for c in h["cards"] if c["code"]}
    if hand.get("pending_card"):
        codes.add(hand["pending_card"]["code"])
    return codes


@LIGHT
@given(tables)
def test_no_viewer_ever_sees_a_card_he_may_not_see(spec: Any) -> None:
    table = _play(spec, steps=60)
    witness = Witness()
    state = table.steps[0].before
    for step in table.steps:
        for event in step.events:
            state = evolve(state, event)
            witness.see(event, state)
            for pid in [s.player_id for s in state.seats] + [None]:
                viewer = Viewer.player(pid) if pid else Viewer.spectator()
                data = view_event(event, viewer, state)
                if isinstance(event, CardDealt) and data["card"] is not None:
                    assert data["card"] in witness.allowed(pid)
                if isinstance(event, HandOpened):
                    assert data["server_seed"] is None
        if not step.accepted:
            continue
        hand = state.hand
        for pid in [s.player_id for s in state.seats] + [None]:
            viewer = Viewer.player(pid) if pid else Viewer.spectator()
            seen = as_json(view(state, viewer, table.wallets))
            assert _visible_codes(seen) <= witness.allowed(pid)
            if seen["hand"] is not None and hand is not None and hand.phase != "settled":
                assert seen["hand"]["server_seed"] is None
                assert seen["hand"]["deck"] is None
        auditor = as_json(view(state, Viewer.auditor()))
        if hand is not None and hand.phase not in ("settled", "abandoned"):
            assert _visible_codes(auditor) <= witness.allowed(None)


@PROPERTY
@given(tables)
def test_the_same_seed_and_commands_always_give_the_same_events(spec: Any) -> None:
    table = _play(spec, steps=50, rig=False)
    state = initial_state()
    for (command, context), step in zip(table.commands, [s for s in table.steps if s.accepted], strict=True):
        wire = json.loads(json.dumps(command_to_json(command)))
        again = command_from_json(wire)
        assert again == command
        assert context_from_json(json.loads(json.dumps(context_to_json(context)))) == context
        events, state = handle(again, state, context)
        assert [json.dumps(event_to_json(e), sort_keys=True) for e in events] == [
            json.dumps(event_to_json(e), sort_keys=True) for e in step.events
        ]
        for e in events:
            assert event_from_json(json.loads(json.dumps(event_to_json(e)))) == e
    assert state == table.state


@PROPERTY
@given(tables)
def test_the_table_waits_on_someone_with_a_deadline_whenever_a_hand_is_in_play(spec: Any) -> None:
    table = _play(spec, steps=60)
    for step in table.steps:
        state = step.after
        if state.hand_in_play:
            assert state.waiting_on is not None, "a hand in play always waits on someone"
            assert state.deadline_ms is not None
        assert state.config is not None
        for e in step.events:
            if isinstance(e, ActionAwaited):
                timeout = state.config.betting_timeout_s if e.kind == "bets" else state.config.turn_timeout_s
                assert e.deadline_ms == step.context.now_ms + timeout * 1000
        awaited = [e for e in step.events if isinstance(e, ActionAwaited)]
        if state.waiting_on is not None and awaited:
            assert awaited[-1].deadline_ms == state.deadline_ms


@PROPERTY
@given(tables)
def test_wallets_never_go_negative_and_stakes_respect_the_limits(spec: Any) -> None:
    table = _play(spec)
    wallets: dict[str, int] = {}
    for step in table.steps:
        for party, amount in step.context.wallets.items():
            wallets.setdefault(party, amount)
        apply_ledger(wallets, step.events)
        assert all(amount >= 0 for party, amount in wallets.items() if party != HOUSE or table.house_funded)
        config = step.after.config
        assert config is not None
        fixed = config.rules.stake_mode == "bank_fixed"
        state = step.before
        for e in step.events:
            if isinstance(e, BetPlaced | HandSplit):
                assert config.min_bet <= e.amount <= config.max_bet
                if fixed:
                    assert state.hand is not None and e.amount == state.hand.stake
            if isinstance(e, StakeRaised):
                assert e.amount >= 1 and e.stake <= config.max_bet
            state = evolve(state, e)
