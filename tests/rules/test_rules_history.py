"""A hand's history (rules/history.py): the house banker's own steps are rows of the core's record."""

from __future__ import annotations

from rules import CardDealt, HandStood, PlaceBet, SitIn, Stand, hand_history
from rules.describe import ActorKind, acted_by
from rules.view_records import HouseAction
from tests.rules.rules_helpers import Table


def test_the_house_bankers_draws_and_stand_are_its_own_action_rows() -> None:
    t = Table("classic", players=("P1",), banker=None, bank="house", stock=["10E", "2O", "1C", "10C", "2B"])
    t.when(SitIn, player_id="P1")
    t.when(PlaceBet, player_id="P1", amount=10)
    t.when(Stand, player_id="P1")
    seq = {id(e): n for n, e in enumerate(t.events, start=1)}
    draws = [seq[id(e)] for e in t.of_type(CardDealt, t.events) if e.banker and e.card in ("1C", "10C", "2B")]
    [stood] = [seq[id(e)] for e in t.of_type(HandStood, t.events) if e.banker]

    history = hand_history(t.events, 1)

    assert history.house_actions == (
        *(HouseAction(seq=n, action="hit", reason="house_rule") for n in draws),
        HouseAction(seq=stood, action="stand", reason="house_rule"),
    )
    # the first banker card was dealt before the house's turn: no row; every row is the house's by acted_by
    assert all(acted_by(t.events[row.seq - 1], {}).kind == ActorKind.HOUSE for row in history.house_actions)


def test_a_player_banker_leaves_no_house_rows() -> None:
    t = Table("classic", players=("B", "P1"), stock=["5O", "4O", "7C"])
    t.when(SitIn, player_id="B")
    t.when(PlaceBet, player_id="P1", amount=10)
    t.when(Stand, player_id="P1")
    assert hand_history(t.events, 1).house_actions == ()
