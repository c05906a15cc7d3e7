"""Play the game over HTTP only (DRF's APIClient through the whole stack): register, deposit, create tables,
sit, and make random legal moves chosen from each player's own ``you.legal_actions``."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rest_framework.test import APIClient

PRESET_BODIES: dict[str, dict[str, Any]] = {
    "classic": {"preset": "classic", "min_bet": 5, "max_bet": 50},
    "italian": {"preset": "italian", "min_bet": 5, "max_bet": 50},
    "spanish": {"preset": "spanish", "min_bet": 5, "max_bet": 50},
    "hungarian": {"preset": "hungarian", "min_bet": 10, "max_bet": 10, "fixed_stake": 10},
}
GAME_ACTIONS = ("bet", "hit", "hit_face_down", "stand", "raise", "split", "assign")
_names = itertools.count(1)


def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, (response.status_code, response.content[:2000])
    return response.json()


@dataclass
class Player:
    username: str
    client: APIClient
    user_id: int

    def view(self, table_id: int) -> dict[str, Any]:
        return ok(self.client.get(f"/api/v1/tables/{table_id}"))

    def act(self, table_id: int, action: str, **args: Any) -> Any:
        return self.client.post(f"/api/v1/tables/{table_id}/actions", {"action": action, **args}, format="json")

    def me(self) -> dict[str, Any]:
        return ok(self.client.get("/api/v1/me"))


def client_with(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def register(anon: APIClient, prefix: str = "gp") -> Player:
    username = f"{prefix}{next(_names)}x{random.randrange(10**6)}"
    body = ok(
        anon.post("/api/v1/auth/register", {"username": username, "password": "correct horse 42"}, format="json"), 201
    )
    return Player(username, client_with(body["token"]), body["id"])


def deposit(cashier: APIClient, player: Player, amount: int) -> None:
    ok(
        cashier.post(
            "/api/v1/cashier/deposits",
            {"username": player.username, "amount": amount, "reference": f"test-{next(_names)}"},
            format="json",
        ),
        201,
    )


def create_table(
    staff: APIClient, preset: str, *, bank: str = "player", max_seats: int | None = None, **extra: Any
) -> dict[str, Any]:
    body = {
        "name": f"{preset} {bank}",
        **PRESET_BODIES[preset],
        "max_seats": max_seats or (8 if bank == "player" else 7),
        "bank": bank,
        **extra,
    }
    return ok(staff.post("/api/v1/tables", body, format="json"), 201)


def _arg_options(action: str, table: dict[str, Any], rng: random.Random) -> list[dict[str, Any]]:
    if action == "bet":
        if table["rules"]["stake_mode"] == "bank_fixed":
            stake = (table["hand"] or {}).get("stake") or table["fixed_stake"]
            return [{"amount": stake}]
        return [{"amount": rng.randint(table["min_bet"], table["max_bet"])}, {"amount": table["min_bet"]}]
    if action == "raise":
        return [{"amount": table["min_bet"]}, {"amount": 1}]
    if action == "assign":
        return [{"hand": i} for i in rng.sample(range(4), 4)]
    return [{}]


@dataclass
class Step:
    player: Player
    action: str
    args: dict[str, Any]
    response: dict[str, Any]


@dataclass
class HttpTable:
    """A table driven over HTTP by a set of players."""

    table_id: int
    players: Sequence[Player]
    rng: random.Random
    steps: list[Step] = field(default_factory=list)

    def sit_all(self) -> None:
        for player in self.players:
            ok(player.client.post(f"/api/v1/tables/{self.table_id}/seats", {}, format="json"), 201)

    def step(self) -> Step:
        """One random legal move by some player, chosen from his own table view."""
        options: list[tuple[Player, str, dict[str, Any]]] = []
        for player in self.players:
            table = player.view(self.table_id)
            for action in table["you"]["legal_actions"]:
                if action in GAME_ACTIONS:
                    options.append((player, action, table))
        assert options, f"table {self.table_id}: nobody can move"
        self.rng.shuffle(options)
        for player, action, table in options:
            if action == "hit" and self.rng.random() < 0.4 and any(p is player and a == "stand" for p, a, _ in options):
                continue
            for args in _arg_options(action, table, self.rng):
                response = player.act(self.table_id, action, **args)
                if response.status_code == 200:
                    step = Step(player, action, args, response.json())
                    self.steps.append(step)
                    return step
                assert response.status_code in (400, 409), (response.status_code, response.content[:500])
        raise AssertionError(f"table {self.table_id}: no legal move was accepted")

    def play_hands(self, hands: int, *, after_step: Callable[[Step], None] | None = None, max_steps: int = 600) -> None:
        """Play until ``hands`` more hands are settled."""
        target = settled_count(self.players[0].view(self.table_id)) + hands
        for _ in range(max_steps):
            step = self.step()
            if after_step is not None:
                after_step(step)
            if settled_count(step.response["table"]) >= target:
                return
        raise AssertionError(f"table {self.table_id}: {hands} hands not finished in {max_steps} steps")


def settled_count(table: dict[str, Any]) -> int:
    """How many hands of the table are over, from its view."""
    hand = table["hand"]
    if hand is None:
        return 0
    return hand["number"] if hand["phase"] == "settled" else hand["number"] - 1
