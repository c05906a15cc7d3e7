"""Nobody sees a card they may not see over the WebSocket either (tests/tables/api/test_api_game_leaks.py over REST).

Random hands of every preset (and a house-banked table) are played over HTTP while every seated player, a
spectator and a staff user each hold a socket on the table. After every action each socket is drained up to
the table's version, and every message it got is checked against the truth of the event store at that moment:
no undealt card, no face-down card of someone else (the banker's included), no seed or entropy not yet revealed.
And each player does see his own cards on his socket: the socket's viewer is the player.
"""

from __future__ import annotations

import random

import pytest

from tests.support.game_helpers import HttpTable, Player, Step, create_table, deposit, register
from tests.support.live_helpers import Socket, open_as
from tests.tables.api.test_api_game_leaks import Truth, assert_no_leak, current_hand_events, strings

pytestmark = pytest.mark.django_db(transaction=True)


class SocketAudience:
    def __init__(self, server: str, table_id: int, players: list[Player], spectator: Player, staff: Player) -> None:
        self.table_id = table_id
        self.viewers: list[tuple[Socket, str | None]] = []
        for viewer, player_id in [(p, str(p.user_id)) for p in players] + [(spectator, None), (staff, None)]:
            socket = open_as(server, table_id, viewer.client)
            socket.recv()
            socket.send({"type": "resume", "after": 0})
            self.viewers.append((socket, player_id))
        self.own_cards_checked = 0
        self.messages_checked = 0

    def check(self, step: Step) -> None:
        version = step.response["table"]["version"]
        truth = Truth(self.table_id)
        for socket, player_id in self.viewers:
            for message in socket.until(version):
                feed = {"events": message["events"]}
                assert_no_leak(message, truth, player_id, "socket", cards_scope=current_hand_events(feed, truth))
                self.messages_checked += 1
            if player_id is not None and truth.in_play:
                seen = set(strings(current_hand_events({"events": socket.events}, truth)))
                mine = truth.own_cards(player_id)
                assert mine <= seen, f"player {player_id} does not see his own cards on his socket"
                self.own_cards_checked += len(mine)

    def close(self) -> None:
        for socket, _ in self.viewers:
            socket.close()


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
def test_no_socket_ever_shows_a_hidden_card(asgi_server, anon, as_staff, staff, client_for, preset, bank):
    rng = random.Random(f"live-leak-{preset}-{bank}")
    players = [register(anon, "wl") for _ in range(3)]
    for player in players:
        deposit(as_staff, player, 20_000)
    spectator = register(anon, "wspec")
    staff_viewer = Player(staff.get_username(), client_for(staff), staff.pk)
    table = create_table(as_staff, preset, bank=bank, max_seats=4)
    game = HttpTable(table["id"], players, rng)
    audience = SocketAudience(asgi_server, table["id"], players, spectator, staff_viewer)
    try:
        game.sit_all()
        game.play_hands(2, after_step=audience.check)
    finally:
        audience.close()
    assert audience.own_cards_checked > 0 and audience.messages_checked > len(game.steps)
