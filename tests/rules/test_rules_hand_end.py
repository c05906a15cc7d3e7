"""Every way a hand ends applies the same end-of-hand steps (issue #35): leavers leave, the bank passes, the table
moves on. Given/when/then on the pure core, and a property over random play of every preset and bank."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import (
    BankPassed,
    HandAbandoned,
    HandSettled,
    LeaveRequested,
    LeaveSeat,
    PlaceBet,
    RetireBank,
    SeatLeft,
    SitIn,
    SitOut,
    TableState,
    Timeout,
    hand_history,
)
from rules.state import replace
from tests.rules.rules_helpers import Table, as_json
from tests.rules.rules_random_play import PRESETS, RandomTable


def _classic_in_betting() -> Table:
    table = Table("classic", players=("B", "P1"))
    table.when(SitIn, player_id="P1")  # a trigger: the hand opens with its betting window
    assert table.hand.phase == "betting"
    return table


def test_a_banker_who_asked_to_leave_is_free_once_the_last_punter_left_and_the_window_expired() -> None:
    """The sequence of issue #35: over HTTP it left the banker's seat ``leaving`` for good."""
    table = _classic_in_betting()
    assert table.of_type(LeaveRequested, table.when(LeaveSeat, player_id="B"))
    table.when(LeaveSeat, player_id="P1")  # the last punter withdraws from the window and leaves at once
    events = table.timeout()  # the window expires with no stake
    assert table.of_type(HandAbandoned, events)[0].reason == "no_stakes"
    assert [(e.seat, e.reason) for e in table.of_type(SeatLeft, events)] == [(1, "after_hand")]
    assert table.of_type(BankPassed, events)[0].reason == "left"
    assert table.state.seats == () and table.state.banker_seat is None


def test_a_banker_who_retired_during_an_abandoned_hand_passes_the_bank_at_its_end() -> None:
    table = Table("classic", players=("B", "P1", "P2"))
    table.when(SitIn, player_id="P1")
    table.when(RetireBank, player_id="B")
    table.when(SitOut, player_id="P1")
    table.when(SitOut, player_id="P2")
    events = table.timeout()
    assert table.of_type(HandAbandoned, events)
    passed = table.of_type(BankPassed, events)
    assert [(p.from_seat, p.reason) for p in passed] == [(1, "retired")]
    assert not table.state.banker_retiring
    table.refused(RetireBank, player_id="B")  # no longer the banker: nothing is left pending


def test_a_seat_left_leaving_by_an_older_version_can_leave_between_hands() -> None:
    """Tables stuck by issue #35 before the fix: the seat is ``leaving`` with no hand in play."""
    table = _classic_in_betting()
    table.when(LeaveSeat, player_id="B")
    table.when(PlaceBet, player_id="P1", amount=1)  # the hand goes on; B leaves at its end
    seat = table.state.seat_of("B")
    assert seat is not None and seat.leaving
    # what the old core left behind: the hand over, the seat still leaving

    assert table.state.hand is not None
    stuck = replace(table.state, hand=replace(table.state.hand, phase="abandoned"), awaiting=None)
    table.state = stuck
    events = table.when(LeaveSeat, player_id="B")
    assert [(e.seat, e.reason) for e in table.of_type(SeatLeft, events)] == [(1, "request")]


def test_a_hand_that_never_dealt_shows_no_deck_and_says_why() -> None:
    table = _classic_in_betting()
    table.when(SitOut, player_id="P1")
    table.timeout()
    history = as_json(hand_history(table.events, 1).hand)
    assert history["phase"] == "abandoned" and history["server_seed"]
    assert history["client_seed"] is None and history["deck"] is None
    assert "client seed was never fixed" in history["deck_reason"]


# -- the property -------------------------------------------------------------------------------------------------

END_WEIGHTS = {"leave": 6.0, "sit_out": 5.0, "sit_in": 5.0, "retire_bank": 2.0, "sit_down": 2.0}
END_PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class EndingTable(RandomTable):
    """Random play that leaves, sits out, lets windows and turns time out and leaves windows empty often."""

    def step(self) -> Any:
        rng = self.rng
        roll = rng.random()
        if roll < 0.25:
            return self.send(Timeout(expected_version=self.state.version))
        seated = self.players()
        if seated and roll < 0.55:
            player = rng.choice(seated)
            name = rng.choices(list(END_WEIGHTS), list(END_WEIGHTS.values()))[0]
            if name == "sit_down":
                player = f"u{len(self.wallets) + rng.randint(0, 2)}"
                if player not in self.wallets:
                    self.join(player)
                    return self.steps[-1]
            return self.send(self.random_command(player, name))
        return super().step()


def _between_hands(state: TableState) -> bool:
    return not state.hand_in_play


@END_PROPERTY
@given(st.sampled_from(PRESETS), st.sampled_from(["player", "house"]), st.integers(1, 4), st.randoms())
def test_between_hands_no_seat_is_leaving_and_every_leave_is_honoured_by_the_next_hand_end(
    preset: str, bank: str, punters: int, rng: random.Random
) -> None:
    table = EndingTable(rng, preset, bank)
    table.setup(punters)
    pending: dict[str, int] = {}  # player -> the hand number in play when he asked to leave
    for _ in range(160):
        step = table.step()
        after = step.after
        for event in step.events:
            if isinstance(event, LeaveRequested):
                assert after.hand is not None or step.before.hand is not None
                pending[event.player_id] = (step.before.hand or after.hand).number  # type: ignore[union-attr]
            elif isinstance(event, SeatLeft):
                pending.pop(event.player_id, None)
            elif isinstance(event, (HandSettled, HandAbandoned)):
                # the hand's end lets every player who asked to leave during it go, in the same command
                overdue = [p for p, n in pending.items() if n <= event.number]
                assert not overdue or all(
                    any(isinstance(e, SeatLeft) and e.player_id == p for e in step.events) for p in overdue
                ), (overdue, step.events)
        if _between_hands(after):
            assert not any(s.leaving for s in after.seats), after.seats
            assert not after.banker_retiring or after.banker_seat is None
        for seat in after.seats:
            if seat.leaving:
                assert after.hand_in_play
