"""Complete hands of every preset played over HTTP only, with several players and a house-banked table: the
balances of ``/me`` and ``/me/ledger`` follow the results of ``/hands/{id}``; every settled hand verifies; and
an outsider recomputes each deck from its revealed seed with the published algorithm (written here again,
with hmac and hashlib only) and finds every dealt card in order."""

from __future__ import annotations

import hashlib
import hmac
import random
from collections import defaultdict
from typing import Any

import pytest

from tests.support.game_helpers import HttpTable, Player, create_table, deposit, ok, register

pytestmark = pytest.mark.django_db

START_CHIPS = 5_000
SUITS = "OCEB"
RANKS = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)


def published_deck(server_seed_hex: str, client_seed: str, nonce: int) -> list[str]:
    """API.md's shuffle, from its text alone."""
    key = bytes.fromhex(server_seed_hex)
    deck = [f"{rank}{suit}" for suit in SUITS for rank in RANKS]

    def u32_stream():  # type: ignore[no-untyped-def]
        k = 0
        while True:
            block = hmac.new(key, f"{client_seed}:{nonce}:{k}".encode(), hashlib.sha256).digest()
            for offset in range(0, 32, 4):
                yield int.from_bytes(block[offset : offset + 4], "big")
            k += 1

    stream = u32_stream()
    for i in range(len(deck) - 1, 0, -1):
        n = i + 1
        limit = 2**32 - (2**32 % n)
        x = next(stream)
        while x >= limit:
            x = next(stream)
        j = x % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def test_the_independent_shuffle_matches_a_known_vector():
    # sanity of the test's own implementation: a permutation of the 40 cards, deterministic, seed-dependent
    a = published_deck("00" * 32, "client", 1)
    assert sorted(a) == sorted(f"{r}{s}" for s in SUITS for r in RANKS)
    assert a == published_deck("00" * 32, "client", 1)
    assert a != published_deck("00" * 32, "client", 2)


def _hand_nets(history: dict[str, Any]) -> dict[str, int]:
    """Each username's net chips in a settled hand, from its results (banker: minus the punters' sum)."""
    by_seat = {p["seat"]: p["username"] for p in history["participants"]}
    nets: dict[str, int] = defaultdict(int)
    for row in history["results"]:
        nets[by_seat[row["seat"]]] += row["net"]
    banker = history["banker"]["username"]
    if banker is not None:
        nets[banker] -= sum(row["net"] for row in history["results"])
    return dict(nets)


def _check_deck(history: dict[str, Any]) -> None:
    assert history["server_seed"] and history["deck"]
    assert hashlib.sha256(bytes.fromhex(history["server_seed"])).hexdigest() == history["seed_commitment"]
    deck = published_deck(history["server_seed"], history["client_seed"], history["nonce"])
    assert deck == history["deck"]
    dealt = [d["card"] for d in sorted(history["deals"], key=lambda d: d["seq"])]
    assert dealt == deck[: len(dealt)]


@pytest.fixture
def players(anon, as_staff) -> list[Player]:
    people = [register(anon) for _ in range(9)]
    for player in people:
        deposit(as_staff, player, START_CHIPS)
    return people


def test_complete_hands_of_every_preset_over_http(players, as_staff):
    rng = random.Random(20261)
    groups = {"classic": players[0:3], "italian": players[3:6], "spanish": players[6:9], "hungarian": players[0:3]}
    tables = []
    for preset, group in groups.items():
        table = create_table(as_staff, preset, bank="player", max_seats=4)
        tables.append(HttpTable(table["id"], group, rng))
    house = create_table(as_staff, "classic", bank="house", max_seats=3)
    tables.append(HttpTable(house["id"], players[3:5], rng))
    for table in tables:
        table.sit_all()
        table.play_hands(3)

    expected = {p.username: START_CHIPS for p in players}
    seen_hands: set[int] = set()
    for player in players:
        for row in ok(player.client.get("/api/v1/me/hands?page_size=200"))["results"]:
            if row["id"] in seen_hands or row["status"] != "settled":
                continue
            seen_hands.add(row["id"])
            history = ok(player.client.get(f"/api/v1/hands/{row['id']}"))
            for username, net in _hand_nets(history).items():
                expected[username] += net
            _check_deck(history)
            assert ok(player.client.get(f"/api/v1/hands/{row['id']}/verify")) == {
                "commitment": "ok",
                "shuffle": "ok",
                "replay": "ok",
                "ledger": "ok",
                "chain": "ok",
                "checkpoint": "ok",
            }
    assert len(seen_hands) >= 15

    for player in players:
        me = player.me()
        assert me["balance"] == expected[player.username], player.username
        ledger = ok(player.client.get("/api/v1/me/ledger?page_size=200"))
        rows = ledger["results"]
        assert ledger["count"] == len(rows)
        assert sum(r["amount"] for r in rows) == me["balance"]
        assert rows[0]["balance_after"] == me["balance"]
        by_hand: dict[int, int] = defaultdict(int)
        for r in rows:
            if r["hand_id"] is not None:
                by_hand[r["hand_id"]] += r["amount"]
        mine = {row["id"]: row["net"] for row in ok(player.client.get("/api/v1/me/hands?page_size=200"))["results"]}
        for hand_id, amount in by_hand.items():
            assert mine[hand_id] == amount, (player.username, hand_id)


def test_the_house_banked_table_shows_the_house_as_banker(players, as_staff):
    table = create_table(as_staff, "classic", bank="house", max_seats=3)
    game = HttpTable(table["id"], players[:2], random.Random(5))
    game.sit_all()
    game.play_hands(1)
    hand_id = ok(players[0].client.get("/api/v1/me/hands"))["results"][0]["id"]
    history = ok(players[0].client.get(f"/api/v1/hands/{hand_id}"))
    assert history["banker"] == {"seat": None, "username": None}
    banker = next(p for p in history["participants"] if p["role"] == "banker")
    assert banker["seat"] is None and banker["username"] is None
    for action in history["actions"]:
        if action["seat"] is None:
            assert action["args"]["reason"] in ("house_rule", "timeout", "stock_exhausted")
    assert all("ctx" not in a["args"] for a in history["actions"])
