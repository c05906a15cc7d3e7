"""Nobody sees a card they may not see, through any endpoint.

Random hands of every preset (and a house-banked table) are played over HTTP. After every action, every
seated player, a spectator and a staff user fetch the table view, the events feed and (where allowed) the
current hand's history. The truth comes from the event store (the folded state of the table and every
recorded command): while a hand is in play, no answer to a viewer may contain an undealt card, a face-down
card of someone else that was never shown (the banker's included), the hand's server seed, or the entropy of
any command (``ctx``: the next hand's seed) other than seeds already revealed.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from rules import TableState, shuffle_deck
from tables import fairness, loader
from tables.store import load_stream
from tests.support.game_helpers import HttpTable, Player, Step, create_table, deposit, ok, register

pytestmark = pytest.mark.django_db


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


class Truth:
    """What exists at a table now, from its events."""

    def __init__(self, table_id: int) -> None:
        self.state: TableState = loader.load_table(table_id).state
        stream = load_stream(table_id)
        hand = self.state.hand
        self.in_play = hand is not None and hand.in_play
        self.opened_seq = 0
        revealed: set[str] = set()
        entropies: set[str] = set()
        for stored in stream:
            if stored.metadata.get("command") is not None:
                entropies.add(stored.metadata["context"]["entropy"])
            if stored.type == "HandOpened":
                if hand is not None and stored.data["number"] == hand.number:
                    self.opened_seq = stored.version
                    if not self.in_play:
                        revealed.add(stored.data["server_seed"])
                else:
                    revealed.add(stored.data["server_seed"])
            if stored.type in ("HandSettled", "HandAbandoned"):
                revealed.add(stored.data["server_seed"])
        self.secret_strings = entropies - revealed
        # the seed committed for the hand in play (or the next one), known only to the sealing key's holder
        self.seed = fairness.unseal(table_id, self.state.pledge)
        self.deck: list[str] = []
        if self.seed is not None:
            self.secret_strings.add(self.seed)
            if self.in_play and hand is not None and hand.client_seed:
                self.deck = shuffle_deck(bytes.fromhex(self.seed), hand.client_seed, hand.number)
        self.secret_strings.discard("")

    def hidden_from(self, player_id: str | None) -> set[str]:
        """Cards ``player_id`` (None: a spectator or staff) may not see in the current hand."""
        hand = self.state.hand
        if hand is None or not self.in_play:
            return set()
        hidden = set((list(hand.deck) or self.deck)[hand.next_card :])
        for h in hand.punters:
            if h.player_id != player_id and not h.shown:
                hidden |= {c for c, up in zip(h.cards, h.face_up, strict=True) if not up}
        b = hand.banker
        if b.player_id is None or b.player_id != player_id:
            hidden |= {c for c, up in zip(b.cards, b.face_up, strict=True) if not up}
        return hidden

    def own_cards(self, player_id: str) -> set[str]:
        hand = self.state.hand
        if hand is None:
            return set()
        mine = {c for h in hand.punters if h.player_id == player_id for c in h.cards}
        if hand.banker.player_id == player_id:
            mine |= set(hand.banker.cards)
        return mine


def assert_no_leak(answer: Any, truth: Truth, player_id: str | None, where: str, *, cards_scope: Any) -> None:
    secrets_seen = truth.secret_strings & set(strings(answer))
    assert not secrets_seen, f"{where}: a secret seed/entropy leaked to {player_id}"
    hidden_seen = truth.hidden_from(player_id) & set(strings(cards_scope))
    assert not hidden_seen, f"{where}: {sorted(hidden_seen)} shown to viewer {player_id}"


def current_hand_events(feed: dict[str, Any], truth: Truth) -> list[dict[str, Any]]:
    return [e for e in feed["events"] if truth.in_play and e["seq"] >= truth.opened_seq]


class Audience:
    def __init__(self, table_id: int, players: list[Player], spectator: Player, staff: Player) -> None:
        self.table_id = table_id
        self.viewers: list[tuple[Player, str | None, bool]] = [(p, str(p.user_id), False) for p in players]
        self.viewers += [(spectator, None, False), (staff, None, True)]
        self.own_cards_checked = 0

    def check(self, step: Step) -> None:
        truth = Truth(self.table_id)
        actor = str(step.player.user_id)
        response = step.response
        assert_no_leak(response, truth, actor, "action answer", cards_scope=[response["table"]["hand"]])
        assert_no_leak(response, truth, actor, "action events", cards_scope=current_hand_events(response, truth))
        for viewer, player_id, is_staff in self.viewers:
            table = viewer.view(self.table_id)
            assert_no_leak(table, truth, player_id, "table view", cards_scope=table["hand"])
            if truth.in_play:
                assert table["hand"]["server_seed"] is None and table["hand"]["deck"] is None
            if player_id is not None and truth.in_play:
                shown = set(strings(table["hand"]))
                mine = truth.own_cards(player_id)
                assert mine <= shown, f"player {player_id} does not see his own cards"
                self.own_cards_checked += len(mine)
            feed = ok(viewer.client.get(f"/api/v1/tables/{self.table_id}/events?after=0"))
            assert_no_leak(feed, truth, player_id, "events feed", cards_scope=current_hand_events(feed, truth))
            hand_id = table["hand"]["id"] if table["hand"] else None
            if hand_id is not None:
                response = viewer.client.get(f"/api/v1/hands/{hand_id}")
                if response.status_code == 403:
                    assert not is_staff, "staff may read every hand"
                    continue
                history = ok(response)
                in_play = truth.in_play and history["status"] == "in_play"
                scope = {k: v for k, v in history.items() if k != "rules"} if in_play else []  # rules name the matta
                assert_no_leak(history, truth, player_id, "hand history", cards_scope=scope)
                if history["status"] == "in_play":
                    assert history["server_seed"] is None and history["deck"] is None


@pytest.mark.parametrize(
    ("preset", "bank"),
    [
        ("classic", "player"),
        ("italian", "player"),
        ("spanish", "player"),
        ("hungarian", "player"),
        ("classic", "house"),
    ],
)
def test_no_viewer_ever_sees_a_hidden_card(anon, as_staff, staff, client_for, preset, bank):
    rng = random.Random(f"leak-{preset}-{bank}")
    players = [register(anon, "lk") for _ in range(3)]
    for player in players:
        deposit(as_staff, player, 20_000)
    spectator = register(anon, "spec")
    staff_viewer = Player(staff.get_username(), client_for(staff), staff.pk)
    table = create_table(as_staff, preset, bank=bank, max_seats=4)
    game = HttpTable(table["id"], players, rng)
    game.sit_all()
    audience = Audience(table["id"], players, spectator, staff_viewer)
    game.play_hands(2, after_step=audience.check)
    assert audience.own_cards_checked > 0
    assert len(game.steps) >= 4
