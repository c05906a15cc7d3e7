"""Play inside a hand: legal actions, splits, raises, exhausted stock, hand history."""

from __future__ import annotations

from rules import (
    Assign,
    CardDealt,
    HandSplit,
    HandStood,
    Hit,
    HitFaceDown,
    PlaceBet,
    Raise,
    SitIn,
    Split,
    Stand,
    hand_history,
    legal_actions,
    shuffle_deck,
    verify_deck,
)
from rules.state import replace
from tests.rules.rules_helpers import Table, as_json


def test_at_turn_after_peek_the_punter_must_bet_before_anything_else() -> None:
    t = Table("italian")
    t.when(SitIn, player_id="B")
    assert legal_actions(t.state, "P1") == ["leave", "bet", "sit_out"]
    assert t.refused(Hit, player_id="P1").code == "illegal_action"
    assert t.refused(Stand, player_id="P1").code == "illegal_action"
    t.when(PlaceBet, player_id="P1", amount=10)
    assert "hit" in legal_actions(t.state, "P1") and "bet" not in legal_actions(t.state, "P1")


def test_legal_actions_check_funds_when_wallets_are_given() -> None:
    t = Table("italian", min_bet=10)
    t.when(SitIn, player_id="B")
    assert "bet" in legal_actions(t.state, "P1", {"P1": 100, "B": 1000})
    assert "bet" not in legal_actions(t.state, "P1", {"P1": 5, "B": 1000})


def test_spanish_raise_adds_to_the_stake_within_the_maximum() -> None:
    t = Table("spanish", players=("B", "P1"), max_bet=30, stock=["4O", "5C", "3B"])
    t.when(SitIn, player_id="B")
    t.when(PlaceBet, player_id="P1", amount=10)
    assert t.refused(Raise, player_id="P1", amount=21).code == "bet_out_of_limits"
    t.when(Raise, player_id="P1", amount=20)
    assert t.hand.find(2, 0).stake == 30
    assert "raise" not in legal_actions(t.state, "P1")
    t.when(Hit, player_id="P1")


def test_a_spanish_split_hand_is_played_after_the_first_and_each_keeps_its_own_hidden_card_rule() -> None:
    t = Table("spanish", players=("B", "P1"), stock=["10O", "3O", "11C", "2E", "6B"])
    t.when(SitIn, player_id="B")
    t.when(PlaceBet, player_id="P1", amount=10)
    t.when(Hit, player_id="P1")
    t.when(Split, player_id="P1")
    split = t.of_type(HandSplit)[0]
    assert (split.from_hand, split.new_hand, split.card, split.amount) == (0, 1, "11C", 10)
    assert t.state.waiting_on is not None and t.state.waiting_on.hand == 0
    assert t.refused(Hit, player_id="P1", hand=1).code == "illegal_action"
    t.when(HitFaceDown, player_id="P1")
    assert t.hand.find(2, 0).face_up == (True, False)
    t.when(Stand, player_id="P1")
    assert t.state.waiting_on is not None and t.state.waiting_on.hand == 1


def test_hungarian_draws_after_a_split_are_assigned_and_the_history_shows_where_cards_ended() -> None:
    t = Table("hungarian", players=("B", "P1"), fixed_stake=10, stock=["11C", "5O", "10O", "6B", "4E", "3C", "1O"])
    t.when(SitIn, player_id="B")
    t.when(PlaceBet, player_id="P1", amount=10)
    t.when(Hit, player_id="P1")
    assert t.refused(Split, player_id="P1", amount=20).code == "bet_out_of_limits"
    t.when(Split, player_id="P1")
    assert t.refused(HitFaceDown, player_id="P1").code == "illegal_action"
    t.when(Hit, player_id="P1")
    assert t.hand.pending == (2, "6B")
    assert t.refused(Stand, player_id="P1").code == "illegal_action"
    assert t.refused(Assign, player_id="P1", hand=5).code == "invalid_request"  # beyond max_hands_per_punter (4)
    assert t.refused(Assign, player_id="P1", hand=3).code == "illegal_action"  # within the limits, not held
    t.when(Assign, player_id="P1", hand=0)
    t.when(Hit, player_id="P1")
    t.when(Assign, player_id="P1", hand=1)
    t.when(Hit, player_id="P1")
    t.when(Assign, player_id="P1", hand=1)
    t.when(Stand, player_id="P1", hand=0)
    t.when(Hit, player_id="B")
    t.when(Stand, player_id="B")
    whole = as_json(hand_history(t.events, 1))
    history = {**whole["hand"], "deals": whole["deals"]}
    deals = [(d["card"], d["to_seat"], d["hand"], d["face_up"]) for d in history["deals"]]
    assert deals == [
        ("11C", 2, 0, False),
        ("5O", 1, 0, False),
        ("10O", 2, 1, True),
        ("6B", 2, 0, True),
        ("4E", 2, 1, True),
        ("3C", 2, 1, True),
        ("1O", 1, 0, True),
    ]
    assert [d["seq"] for d in history["deals"]] == sorted(d["seq"] for d in history["deals"])
    assert [(r["hand"], r["net"]) for r in history["results"]] == [(0, 10), (1, 20)]
    # the history recomputes the deck from the revealed seed: a rigged (test-only) stock never verifies
    seed = bytes.fromhex(history["server_seed"])
    assert history["deck"] == shuffle_deck(seed, history["client_seed"], 1)
    assert not verify_deck(seed, history["seed_commitment"], history["client_seed"], 1, [d[0] for d in deals])
    assert history["next_banker"]["seat"] == 2


def test_an_exhausted_stock_treats_a_request_for_a_card_as_standing() -> None:
    t = Table("classic", players=("B", "P1"), stock=["5O", "4O"])
    t.when(SitIn, player_id="B")
    t.when(PlaceBet, player_id="P1", amount=10)
    # test-only: pretend every other card has left the stock
    t.state = replace(t.state, hand=replace(t.hand, next_card=40))
    t.when(Hit, player_id="P1")
    assert HandStood(seat=2, hand=0, banker=False, reason="stock_exhausted") in t.last
    assert not t.of_type(CardDealt)
    t.when(Hit, player_id="B")
    assert HandStood(seat=1, hand=0, banker=True, reason="stock_exhausted") in t.last
