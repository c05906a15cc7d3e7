"""Covering the bank, reserves (§7), passing and retiring the bank (§6), the house banker."""

from __future__ import annotations

from rules import (
    BankCannotCover,
    BankPassed,
    BankRetirementRequested,
    BetPlaced,
    CardDealt,
    HandOpened,
    HandSettled,
    HandStood,
    Hit,
    IllegalAction,
    InsufficientFunds,
    LeaveSeat,
    PlaceBet,
    RetireBank,
    SetStake,
    SitDown,
    SitIn,
    Stand,
)
from tests.rules.rules_helpers import Table


def test_stake_events_carry_the_ledger_data() -> None:
    t = Table("italian", min_bet=5)
    t.when(SitIn, player_id="B")
    t.when(PlaceBet, player_id="P1", amount=10)
    bet = t.of_type(BetPlaced)[0]
    assert (bet.seat, bet.player_id, bet.hand, bet.amount, bet.banker_id) == (2, "P1", 0, 10, "B")
    assert (bet.punter_reserve, bet.banker_reserve) == (10, 30)  # italian: loses 1x, can win 3x


def test_a_stake_the_punter_cannot_cover_is_refused() -> None:
    t = Table("classic", wallet=1000)
    t.wallets["P1"] = 15
    t.when(SitIn, player_id="B")
    assert isinstance(t.refused(PlaceBet, player_id="P1", amount=20), InsufficientFunds)
    t.when(PlaceBet, player_id="P1", amount=15)


def test_a_stake_the_bank_cannot_cover_is_refused() -> None:
    t = Table("classic", min_bet=10)
    t.wallets["B"] = 15
    t.when(SitIn, player_id="B")
    t.when(PlaceBet, player_id="P1", amount=10)
    assert isinstance(t.refused(PlaceBet, player_id="P2", amount=10), BankCannotCover)


def test_only_punters_the_remaining_bank_can_cover_are_dealt_in_at_turn() -> None:
    t = Table("italian", players=("B", "P1", "P2", "P3"), min_bet=10)
    t.wallets["B"] = 70  # covers two minimum stakes at 3x
    t.when(SitIn, player_id="B")
    assert t.of_type(HandOpened)[0].entrants == (2, 3)
    assert isinstance(
        t.refused(PlaceBet, player_id="P1", amount=20), BankCannotCover
    )  # would leave P2's minimum uncovered
    t.when(PlaceBet, player_id="P1", amount=10)
    t.when(Stand, player_id="P1")
    t.when(PlaceBet, player_id="P2", amount=10)


def test_a_player_who_cannot_cover_the_bank_never_holds_it() -> None:
    t = Table("classic", players=("B", "P1", "P2"), banker="B", min_bet=10)
    t.wallets["B"] = 5
    t.when(SitIn, player_id="P1")
    passed = t.of_type(BankPassed)[0]
    assert (passed.from_seat, passed.to_seat, passed.reason) == (1, 2, "cannot_cover")


def test_retiring_between_hands_offers_the_bank_to_the_right_at_once() -> None:
    t = Table("classic", players=("B", "P1", "P2"))
    t.when(RetireBank, player_id="B")
    assert t.of_type(BankPassed)[0] == BankPassed(from_seat=1, to_seat=2, player_id="P1", reason="retired")
    assert t.of_type(HandOpened)[0].banker_seat == 2


def test_retiring_during_a_hand_takes_effect_after_it() -> None:
    t = Table("classic", players=("B", "P1"), stock=["5O", "4O"])
    t.when(SitIn, player_id="B")
    t.when(RetireBank, player_id="B")
    assert t.of_type(BankRetirementRequested)
    assert t.refused(RetireBank, player_id="B").code == "illegal_action"
    assert t.refused(RetireBank, player_id="P1").code == "illegal_action"
    t.when(PlaceBet, player_id="P1", amount=10)
    t.when(Stand, player_id="P1")
    t.when(Stand, player_id="B")
    settled = t.of_type(HandSettled)[0]
    assert (settled.next_banker_seat, settled.bank_reason) == (2, "retired")


def test_a_banker_who_leaves_between_hands_passes_the_bank() -> None:
    t = Table("classic", players=("B", "P1", "P2"))
    t.when(LeaveSeat, player_id="B")
    assert t.of_type(BankPassed)[0] == BankPassed(from_seat=1, to_seat=2, player_id="P1", reason="left")


def test_bank_rotation_every_hand_passes_the_bank_to_the_right() -> None:
    t = Table("classic", players=("B", "P1", "P2"), overrides={"bank_rotation": "every_hand"}, stock=["5O", "3E", "4O"])
    t.when(SitIn, player_id="B")
    t.when(PlaceBet, player_id="P1", amount=10)
    t.when(PlaceBet, player_id="P2", amount=10)
    t.when(Stand, player_id="P1")
    t.when(Stand, player_id="P2")
    t.when(Stand, player_id="B")
    settled = t.of_type(HandSettled)[0]
    assert (settled.next_banker_seat, settled.bank_reason) == (2, "rotation")


def test_a_winner_with_seven_and_a_half_who_cannot_cover_the_bank_does_not_take_it() -> None:
    # italian with any_75: the bank reserves 3x per stake, a plain 7.5 pays 1x: 10 + 10 back < 30 needed
    t = Table(
        "italian",
        players=("B", "P1"),
        overrides={"bank_transfer_trigger": "any_75"},
        min_bet=10,
        stock=["4C", "5B", "3O", "10E"],
    )
    t.wallets["P1"] = 10
    t.when(SitIn, player_id="B")
    t.when(PlaceBet, player_id="P1", amount=10)
    t.when(Hit, player_id="P1")
    t.when(Hit, player_id="P1")
    t.when(Stand, player_id="B")
    settled = t.of_type(HandSettled)[0]
    assert settled.results[0].category == "seven_half" and settled.results[0].outcome == "win"
    assert (settled.next_banker_seat, settled.bank_reason) == (1, "kept")


def test_a_winner_with_seven_and_a_half_who_can_cover_takes_the_bank() -> None:
    t = Table("spanish", players=("B", "P1"), stock=["10E", "4O", "7O"], min_bet=10)
    t.wallets["P1"] = 10  # spanish: 7.5 pays 2x: 30 back >= 2 x 10 needed
    t.when(SitIn, player_id="B")
    t.when(PlaceBet, player_id="P1", amount=10)
    t.when(Hit, player_id="P1")
    t.when(Stand, player_id="B")
    settled = t.of_type(HandSettled)[0]
    assert (settled.next_banker_seat, settled.bank_reason) == (2, "won")


def test_the_house_banker_draws_below_banker_stands_at_hp_and_stands_from_it() -> None:
    t = Table("classic", players=("P1",), banker=None, bank="house", stock=["10E", "2O", "1C", "10C", "2B"])
    t.when(SitIn, player_id="P1")
    t.when(PlaceBet, player_id="P1", amount=10)
    t.when(Stand, player_id="P1")
    banker_cards = [e.card for e in t.of_type(CardDealt, t.events) if e.banker and e.number == 1]
    assert banker_cards == ["2O", "1C", "10C", "2B"]  # 4, 6 and 7 hp draw; 11 hp stands
    assert HandStood(seat=None, hand=0, banker=True, reason="house_rule") in t.last
    settled = t.of_type(HandSettled)[0]
    assert settled.banker_id is None and "house" in settled.payouts and settled.next_banker_seat is None


def test_set_stake_changes_s_from_the_next_hand_on() -> None:
    t = Table("hungarian", players=("B", "P1"), fixed_stake=10, stock=["5O", "4O"])
    t.when(SitIn, player_id="B")
    t.when(SetStake, player_id="B", amount=20)
    assert t.hand.stake == 10 and t.state.stake == 20
    assert t.refused(SetStake, player_id="P1", amount=20).code == "illegal_action"
    assert t.refused(SetStake, player_id="B", amount=1000).code == "bet_out_of_limits"
    t.when(PlaceBet, player_id="P1", amount=10)
    t.when(Stand, player_id="P1")
    t.when(Stand, player_id="B")
    assert t.of_type(HandOpened)[0].stake == 20


def test_a_retirement_nobody_else_can_cover_leaves_the_table_waiting_without_a_banker() -> None:
    t = Table("classic", players=("B", "P1"), min_bet=10)
    t.wallets["P1"] = 5  # P1 cannot cover the bank
    t.when(RetireBank, player_id="B")
    assert t.of_type(BankPassed) == [BankPassed(from_seat=1, to_seat=None, player_id=None, reason="retired")]
    assert t.state.banker_seat is None and t.state.phase == "waiting" and not t.of_type(HandOpened)


def test_the_bank_is_offered_again_only_when_a_hand_could_start() -> None:
    t = Table("classic", players=("B", "P1"), min_bet=10)
    t.when(LeaveSeat, player_id="P1")
    t.when(RetireBank, player_id="B")
    assert t.state.banker_seat is None
    # alone at the table: "ready" would change nothing, so it is refused (API.md v1.2)
    assert isinstance(t.refused(SitIn, player_id="B"), IllegalAction)
    assert t.state.banker_seat is None
    t.wallets["P2"] = 100
    t.when(SitDown, player_id="P2", username="P2")
    offered = t.of_type(BankPassed)[0]
    assert (offered.to_seat, offered.reason) == (2, "offered") and t.of_type(HandOpened)
