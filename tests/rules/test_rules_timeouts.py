"""Timeouts as commands (RULES.md §7): what the table does for whoever it waits on, and only then."""

from __future__ import annotations

from rules import (
    ActionAwaited,
    Assign,
    Awaiting,
    BetPlaced,
    CardAssigned,
    HandOpened,
    HandSettled,
    HandStood,
    Hit,
    PlaceBet,
    PlayerTimedOut,
    PunterSkipped,
    SatOut,
    SitIn,
    Split,
    Stand,
    TimeoutStreakReset,
    WaitKind,
)
from tests.rules.rules_helpers import Table


def test_every_wait_carries_a_deadline_from_the_clock_and_the_table_timeouts() -> None:
    t = Table("italian")
    t.when(SitIn, player_id="B")
    awaited = t.of_type(ActionAwaited)[-1]
    assert (awaited.seat, awaited.hand, awaited.kind) == (2, 0, "bet")
    assert awaited.deadline_ms == t.now_ms + t.config.turn_timeout_s * 1000
    assert t.state.waiting_on == Awaiting(seat=2, hand=0, kind=WaitKind.OWED_BET, deadline_ms=awaited.deadline_ms)
    assert t.state.deadline_ms == awaited.deadline_ms


def test_a_punter_who_owes_a_bet_at_his_turn_bets_the_minimum_and_stands() -> None:
    t = Table("italian", min_bet=5)
    t.when(SitIn, player_id="B")
    t.timeout()
    bet = t.of_type(BetPlaced)[0]
    assert (bet.player_id, bet.amount, bet.by_timeout) == ("P1", 5, True)
    assert HandStood(seat=2, hand=0, banker=False, reason="timeout") in t.last
    assert t.of_type(PlayerTimedOut)[0].streak == 1
    assert t.state.waiting_on is not None and t.state.waiting_on.seat == 3


def test_a_punter_who_does_not_act_on_his_turn_stands() -> None:
    t = Table("classic", stock=["5O", "3E", "4O"])
    t.when(SitIn, player_id="B")
    t.when(PlaceBet, player_id="P1", amount=10)
    t.when(PlaceBet, player_id="P2", amount=10)
    t.timeout()
    assert HandStood(seat=2, hand=0, banker=False, reason="timeout") in t.last
    assert t.state.waiting_on is not None and t.state.waiting_on.seat == 3


def test_in_a_classic_window_those_who_did_not_bet_sit_the_hand_out() -> None:
    t = Table("classic", stock=["5O", "4O"])
    t.when(SitIn, player_id="B")
    t.when(PlaceBet, player_id="P1", amount=10)
    t.timeout()
    assert PunterSkipped(seat=3, player_id="P2", reason="timeout") in t.last
    assert [h.seat for h in t.hand.punters] == [2]
    assert t.state.phase == "punters"


def test_hungarian_bets_owed_after_the_deal_are_made_at_s_on_timeout() -> None:
    t = Table("hungarian", fixed_stake=10)
    t.when(SitIn, player_id="B")
    assert t.state.phase == "betting" and all(h.cards for h in t.hand.punters)
    t.when(PlaceBet, player_id="P1", amount=10)
    t.timeout()
    bets = t.of_type(BetPlaced)
    assert [(b.player_id, b.amount, b.by_timeout) for b in bets] == [("P2", 10, True)]
    assert bets[0].punter_reserve == 40 and bets[0].banker_reserve == 20
    assert t.state.phase == "punters"


def test_a_player_banker_who_does_not_act_stands_on_his_total() -> None:
    t = Table("classic", players=("B", "P1"), stock=["5O", "4O"])
    t.when(SitIn, player_id="B")
    t.when(PlaceBet, player_id="P1", amount=10)
    t.when(Stand, player_id="P1")
    assert t.state.phase == "banker"
    t.timeout()
    assert HandStood(seat=1, hand=0, banker=True, reason="timeout") in t.last and t.of_type(HandSettled)


def test_two_timeouts_in_a_row_sit_a_player_out_for_later_hands() -> None:
    t = Table("italian", players=("B", "P1", "P2"))
    t.when(SitIn, player_id="B")
    t.timeout()  # P1 times out (bet owed)
    t.when(PlaceBet, player_id="P2", amount=10)
    t.when(Stand, player_id="P2")
    t.when(Stand, player_id="B")  # settles; the next hand opens with P1 to bet first
    t.timeout()
    assert SatOut(seat=2, player_id="P1", reason="timeout") in t.last
    t.when(PlaceBet, player_id="P2", amount=10)
    t.when(Stand, player_id="P2")
    t.when(Stand, player_id="B")
    assert t.of_type(HandOpened)[0].entrants == (3,)


def test_acting_again_resets_the_timeout_streak() -> None:
    t = Table("italian", players=("B", "P1", "P2"))
    t.when(SitIn, player_id="B")
    t.timeout()
    t.when(PlaceBet, player_id="P2", amount=10)
    t.when(Stand, player_id="P2")
    t.when(Stand, player_id="B")
    t.when(PlaceBet, player_id="P1", amount=10)
    assert TimeoutStreakReset(seat=2, player_id="P1") in t.last
    assert t.state.seat_of("P1").timeouts == 0  # type: ignore[union-attr]


def test_a_hungarian_card_left_unassigned_goes_to_the_first_hand_it_does_not_bust() -> None:
    t = Table("hungarian", players=("B", "P1"), fixed_stake=10, stock=["11C", "5O", "10O", "7E", "4E"])
    t.when(SitIn, player_id="B")
    t.when(PlaceBet, player_id="P1", amount=10)
    t.when(Hit, player_id="P1")
    t.when(Split, player_id="P1", amount=10)
    t.when(
        Hit, player_id="P1"
    )  # 7E drawn: H1 = 11C + 7E would be 7.5, H2 = 10O + 7E also; first that does not bust: H1
    t.timeout()
    assert CardAssigned(seat=2, hand=0, card="7E") in t.last
    assert t.of_type(HandStood) == [HandStood(seat=2, hand=1, banker=False, reason="timeout")]
    assert t.refused(Assign, player_id="P1", hand=1).code in ("not_your_turn", "wrong_phase")
