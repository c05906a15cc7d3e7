"""What each viewer may see: the table view, the events feed, legal actions in the view."""

from __future__ import annotations

from rules import (
    CardDealt,
    HandOpened,
    HandSettled,
    Hit,
    HitFaceDown,
    LeaveSeat,
    PlaceBet,
    SitIn,
    Stand,
    Viewer,
    view,
    view_event,
)
from tests.rules.rules_helpers import Table, as_json


def _cards(data: dict, seat: int | None) -> list[str | None]:  # type: ignore[type-arg]
    part = next(p for p in data["hand"]["participants"] if p["seat"] == seat)
    return [c["code"] for c in part["hands"][0]["cards"]]


def _spanish_table() -> Table:
    t = Table("spanish", players=("B", "P1", "P2"), stock=["6O", "2C", "5E", "10C", "4B"])
    t.when(SitIn, player_id="B")
    t.when(PlaceBet, player_id="P1", amount=10)
    t.when(HitFaceDown, player_id="P1")  # 6O turned up, 10C dealt down
    return t


def test_a_player_sees_his_own_face_down_card_and_nobody_else_does() -> None:
    t = _spanish_table()
    assert _cards(as_json(view(t.state, Viewer.player("P1"))), 2) == ["6O", "10C"]
    assert _cards(as_json(view(t.state, Viewer.player("P2"))), 2) == ["6O", None]
    assert _cards(as_json(view(t.state, Viewer.player("B"))), 2) == ["6O", None]
    assert _cards(as_json(view(t.state, Viewer.spectator())), 2) == ["6O", None]
    assert _cards(as_json(view(t.state, Viewer.auditor())), 2) == ["6O", None]  # not settled yet


def test_the_banker_card_is_seen_by_the_player_banker_only_until_his_turn() -> None:
    t = _spanish_table()
    assert _cards(as_json(view(t.state, Viewer.player("B"))), 1) == ["5E"]
    assert _cards(as_json(view(t.state, Viewer.player("P1"))), 1) == [None]


def test_totals_are_given_only_where_the_viewer_sees_every_card() -> None:
    t = _spanish_table()
    mine = next(p for p in as_json(view(t.state, Viewer.player("P1")))["hand"]["participants"] if p["seat"] == 2)
    theirs = next(p for p in as_json(view(t.state, Viewer.player("P2")))["hand"]["participants"] if p["seat"] == 2)
    assert (mine["hands"][0]["total_half_points"], mine["hands"][0]["total"]) == (13, "6.5")
    assert theirs["hands"][0]["total_half_points"] is None and theirs["hands"][0]["category"] is None


def test_the_server_seed_is_hidden_until_settlement_and_everything_is_shown_after() -> None:
    t = Table("classic", players=("B", "P1"), stock=["5O", "4O"])
    t.when(SitIn, player_id="B")
    t.when(PlaceBet, player_id="P1", amount=10)
    assert as_json(view(t.state, Viewer.player("P1")))["hand"]["server_seed"] is None
    opened = next(e for e in t.events if isinstance(e, HandOpened))
    assert view_event(opened, Viewer.player("P1"), t.state)["server_seed"] is None
    t.when(Stand, player_id="P1")
    settled_state = t.state
    t.when(Stand, player_id="B")
    assert view_event(opened, Viewer.spectator(), t.state)["server_seed"] == opened.server_seed
    dealt = next(e for e in t.events if isinstance(e, CardDealt) and not e.face_up)
    assert view_event(dealt, Viewer.player("B"), settled_state)["card"] is None
    assert view_event(dealt, Viewer.player("B"), t.state)["card"] == dealt.card


def test_the_auditor_sees_the_whole_deck_after_settlement_and_players_do_not() -> None:
    t = Table("classic", players=("B", "P1"), stock=["5O", "4O"])
    t.when(SitIn, player_id="B")
    t.when(PlaceBet, player_id="P1", amount=10)
    t.when(Stand, player_id="P1")
    events = t.events
    t.when(Stand, player_id="B")
    from rules import HandSettled, fold

    index = max(i for i, e in enumerate(t.events) if isinstance(e, HandSettled))
    after = fold(t.events[: index + 1])
    assert len(as_json(view(after, Viewer.auditor()))["hand"]["deck"]) == 40
    assert as_json(view(after, Viewer.player("P1")))["hand"]["deck"] is None
    assert as_json(view(after, Viewer.player("P1")))["hand"]["server_seed"] == after.hand.server_seed  # type: ignore[union-attr]
    assert events


def test_the_view_lists_the_players_legal_actions() -> None:
    t = Table("italian", players=("B", "P1", "P2"))
    t.when(SitIn, player_id="B")
    assert as_json(view(t.state, Viewer.player("P1")))["you"]["legal_actions"] == ["leave", "bet", "sit_out"]
    assert "bet" not in as_json(view(t.state, Viewer.player("P2")))["you"]["legal_actions"]
    assert as_json(view(t.state, Viewer.player("stranger")))["you"]["legal_actions"] == ["sit_down"]
    assert as_json(view(t.state, Viewer.spectator()))["you"] is None
    t.when(PlaceBet, player_id="P1", amount=10)
    assert as_json(view(t.state, Viewer.player("P1")))["you"]["legal_actions"] == ["leave", "hit", "stand", "sit_out"]


def test_the_view_has_the_api_shape() -> None:
    t = _spanish_table()
    data = as_json(view(t.state, Viewer.player("P1")))
    assert data["phase"] == "punters" and data["version"] == t.state.version
    assert {"seat", "username", "is_banker", "sitting_out"} <= set(data["seats"][0])
    assert data["hand"]["turn"]["seat"] == 2 and data["hand"]["turn"]["deadline"] == t.state.deadline_ms
    assert data["settings"]["rules"]["split_mode"] == "spanish" and data["settings"]["preset"] == "spanish"
    hand = data["hand"]["participants"][1]["hands"][0]
    assert set(hand) >= {"index", "bet", "cards", "total", "total_half_points", "category", "status"}


def test_a_busted_hand_is_shown_to_everybody_at_once() -> None:
    t = Table("classic", players=("B", "P1", "P2"), stock=["6O", "3E", "5B", "6C"])
    t.when(SitIn, player_id="B")
    t.when(PlaceBet, player_id="P1", amount=10)
    t.when(PlaceBet, player_id="P2", amount=10)
    t.when(Hit, player_id="P1")
    assert _cards(as_json(view(t.state, Viewer.player("P2"))), 2) == ["6O", "6C"]
    busted = next(e for e in t.last if type(e).__name__ == "HandBusted")
    assert view_event(busted, Viewer.spectator(), t.state)["cards"] == ["6O", "6C"]


def _settled_classic_hand() -> Table:
    t = Table("classic", players=("B", "P1"), stock=["5O", "4O"])
    t.when(SitIn, player_id="B")
    t.when(PlaceBet, player_id="P1", amount=10)
    t.when(Stand, player_id="P1")
    t.when(Stand, player_id="B")
    return t


def test_last_hand_shows_how_the_previous_hand_ended_to_every_viewer_alike() -> None:
    t = _settled_classic_hand()
    settled = next(e for e in t.events if isinstance(e, HandSettled))
    last = as_json(view(t.state, Viewer.player("P1")))["last_hand"]
    assert (
        last
        == as_json(view(t.state, Viewer.player("B")))["last_hand"]
        == as_json(view(t.state, Viewer.spectator()))["last_hand"]
    )
    assert last["number"] == settled.number and last["status"] == "settled"
    dealt = [e for e in t.events if isinstance(e, CardDealt) and e.number == settled.number]
    assert last["banker"]["cards"] == [e.card for e in dealt if e.banker]
    assert last["banker"]["username"] == "B" and last["banker"]["total_half_points"] == settled.banker_total_half_points
    [row] = last["results"]
    [result] = settled.results
    assert row["cards"] == [e.card for e in dealt if not e.banker]
    assert (row["username"], row["outcome"], row["net"], row["total_half_points"], row["category"]) == (
        "P1",
        result.outcome,
        result.net,
        result.total_half_points,
        result.category,
    )


def test_last_hand_stays_while_the_next_hand_is_played_until_that_one_ends() -> None:
    t = _settled_classic_hand()
    first = as_json(view(t.state, Viewer.spectator()))["last_hand"]
    t.when(PlaceBet, player_id="P1", amount=10)  # the next hand is in play
    in_play = as_json(view(t.state, Viewer.player("P1")))
    assert in_play["hand"]["number"] == first["number"] + 1
    assert in_play["last_hand"] == first
    t.when(Stand, player_id="P1")
    if t.state.hand is not None and t.state.hand.in_play:
        t.when(Stand, player_id="B")
    assert as_json(view(t.state, Viewer.spectator()))["last_hand"]["number"] == first["number"] + 1


def test_last_hand_keeps_the_name_of_a_player_who_left_after_it() -> None:
    t = _settled_classic_hand()
    t.when(LeaveSeat, player_id="P1")
    assert t.state.seat_of("P1") is None
    assert as_json(view(t.state, Viewer.spectator()))["last_hand"]["results"][0]["username"] == "P1"


def test_legal_hands_lists_the_hand_each_hand_action_accepts() -> None:
    t = Table("classic", players=("B", "P1"), stock=["5O", "4O", "2C"])
    t.when(SitIn, player_id="B")
    t.when(PlaceBet, player_id="P1", amount=10)
    you = as_json(view(t.state, Viewer.player("P1")))["you"]
    assert "hit" in you["legal_actions"] and you["legal_hands"]["hit"] == [0]
    assert you["legal_hands"]["stand"] == [0]
    assert set(you["legal_hands"]) <= set(you["legal_actions"])
    assert as_json(view(t.state, Viewer.player("B")))["you"]["legal_hands"] == {}  # not his turn
