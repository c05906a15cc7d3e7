"""The flow: after a command's own facts, the automatic steps run in a hand's order until the table waits."""

from __future__ import annotations

from rules import (
    ActionAwaited,
    BankerTurnStarted,
    BettingClosed,
    CardDealt,
    CardTurnedUp,
    ClientSeedFixed,
    HandOpened,
    HandSettled,
    HandStood,
    Hit,
    PlaceBet,
    SeedCommitted,
    SitIn,
    SitOut,
    Stand,
    WaitKind,
)
from rules.draft import Draft
from rules.flow import next_automatic_step
from tests.rules.rules_helpers import Table


def _kinds(events: list[object]) -> list[str]:
    return [type(e).__name__ for e in events]


def test_a_stand_runs_on_to_the_next_hand_in_one_command() -> None:
    # house bank, one punter: 5O to him, 2O to the house, which then draws by its rule (below 10 hp)
    t = Table("classic", players=("P1",), banker=None, bank="house", stock=["5O", "2O", "1C", "10C", "2B"])
    t.when(SitIn, player_id="P1")
    assert t.state.awaiting is not None and t.state.awaiting.kind == WaitKind.BETTING_WINDOW
    deal = t.when(PlaceBet, player_id="P1", amount=10)
    assert _kinds(deal) == [
        "BetPlaced",
        "BettingClosed",
        "ClientSeedFixed",
        "CardDealt",
        "CardDealt",
        "ActionAwaited",
    ]
    events = t.when(Stand, player_id="P1")
    kinds = _kinds(events)
    # the player's own fact, then every automatic step up to the next betting window
    assert kinds[0] == "HandStood"
    assert kinds[1:3] == ["BankerTurnStarted", "CardTurnedUp"]
    assert kinds.index("HandSettled") > kinds.index("CardTurnedUp")
    assert kinds[-3:] == ["HandOpened", "SeedCommitted", "ActionAwaited"]  # hand 2 opens and commits hand 4
    assert isinstance(events[0], HandStood) and events[0].reason == "action"
    assert isinstance(events[-1], ActionAwaited) and events[-1].kind == WaitKind.BETTING_WINDOW
    settled = next(e for e in events if isinstance(e, HandSettled))
    assert settled.number == 1 and isinstance(events[-3], HandOpened) and events[-3].number == 2
    # between the turned-up card and the settlement: only the house banker's draws and its stand
    assert all(isinstance(e, (CardDealt, HandStood)) for e in events[3 : kinds.index("HandSettled")])


def test_the_table_waiting_on_a_player_has_no_automatic_step() -> None:
    t = Table("classic", players=("B", "P1"), stock=["1O", "2O", "1C"])
    t.when(PlaceBet, player_id="P1", amount=10)
    state = t.state
    assert state.awaiting is not None and state.awaiting.kind == WaitKind.PLAY
    assert next_automatic_step(Draft(state, t.ctx())) is None
    assert next_automatic_step(Draft(state, t.ctx(), SitOut(player_id="P1"))) is None  # no answer to the wait
    # once he has acted (his command got past its checks), his turn goes on with a fresh wait
    assert next_automatic_step(Draft(state, t.ctx(), Hit(player_id="P1"))) is not None
    events = t.when(Hit, player_id="P1")
    assert _kinds(events) == ["CardDealt", "ActionAwaited"]
    assert isinstance(events[1], ActionAwaited) and events[1].seat == state.awaiting.seat


def test_a_betting_window_closes_by_itself_once_nobody_owes_a_bet() -> None:
    t = Table("classic", players=("B", "P1", "P2"))
    t.when(PlaceBet, player_id="P1", amount=10)
    assert t.state.awaiting is not None and t.state.awaiting.kind == WaitKind.BETTING_WINDOW
    events = t.when(PlaceBet, player_id="P2", amount=10)
    assert isinstance(events[1], BettingClosed) and isinstance(events[2], ClientSeedFixed)
    assert [type(e) for e in events[3:6]] == [CardDealt, CardDealt, CardDealt]
    assert isinstance(events[-1], ActionAwaited) and events[-1].kind == WaitKind.PLAY
    assert not any(isinstance(e, (BankerTurnStarted, CardTurnedUp, SeedCommitted)) for e in events)
