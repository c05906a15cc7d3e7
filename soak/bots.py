"""The bots: one player per thread at one table, playing legal actions over HTTP until told to stop."""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections import Counter
from typing import Any

from soak.client import Client
from soak.record import Attempt, Record, Request, is_final
from soak.timing import TURN_TIMEOUT_S


class Bot(threading.Thread):
    """A player at one table: reads the table, sends one legal action, now and then idles past the deadline."""

    def __init__(
        self, name: str, user_id: int, password: str, table_id: int, port: int, live_port: int | None,
        record: Record, stop: threading.Event, rng: random.Random, pace: float, idle: float,
    ) -> None:  # fmt: skip
        super().__init__(name=name, daemon=True)
        self.username = name
        self.user_id = user_id
        self.password = password
        self.table_id = table_id
        self.record = record
        self.stop = stop
        self.rng = rng
        self.pace = pace
        self.idle = idle
        self.client = Client(port, record, stop)
        self.live = Client(live_port, record, stop, timeout=15) if live_port else None
        self.waits = Counter[str]()
        self.seated = threading.Event()
        self.actions = 0
        self.refused = 0
        self.repeats = 0
        self.error: str | None = None

    def post(self, path: str, body: dict[str, Any]) -> Attempt:
        request = Request(self.username, self.user_id, self.table_id, "POST", path, body, uuid.uuid4().hex)
        with self.record.lock:
            self.record.requests.append(request)
        answer = self.client.call(request)
        if is_final(answer) and self.rng.random() < 0.05:  # a client that did not trust its answer: ask again
            repeat = self.client.once("POST", path, body, request.key)
            while not is_final(repeat) and not self.stop.is_set():
                time.sleep(0.2)
                repeat = self.client.once("POST", path, body, request.key)
            request.repeats.append(repeat)
            self.repeats += 1
        return answer

    def get(self, path: str) -> Attempt:
        request = Request(self.username, self.user_id, self.table_id, "GET", path, None, None)
        return self.client.call(request)

    def run(self) -> None:
        try:
            self._play()
        except Exception as exc:  # a bot that crashes is a finding, not a silent stop
            self.error = f"{exc.__class__.__name__}: {exc}"
            self.record.violation(f"bot {self.username} crashed: {self.error}")

    def _play(self) -> None:
        answer = self.client.call(
            Request(self.username, self.user_id, self.table_id, "POST", "/api/v1/auth/token",
                    {"username": self.username, "password": self.password}, None)
        )  # fmt: skip
        if answer.status != 200:
            raise RuntimeError(f"no token: {answer.status} {answer.body}")
        self.client.token = answer.body["token"]
        if self.live is not None:
            self.live.token = self.client.token
        seat = self.post(f"/api/v1/tables/{self.table_id}/seats", {})
        if seat.status not in (201, 409):
            raise RuntimeError(f"could not sit: {seat.status} {seat.body}")
        self.seated.set()
        table = self.get(f"/api/v1/tables/{self.table_id}").body
        while not self.stop.is_set():
            action = self._choose(table)
            if action is None:
                self._wait_for_news(table)
                table = self.get(f"/api/v1/tables/{self.table_id}").body
                continue
            if self.rng.random() < self.idle:  # let the deadline pass: the timers must move the table on
                time.sleep(TURN_TIMEOUT_S + self.rng.uniform(0.5, 2.0))
                table = self.get(f"/api/v1/tables/{self.table_id}").body
                continue
            answer = self.post(f"/api/v1/tables/{self.table_id}/actions", action)
            if answer.status == 200:
                self.actions += 1
                table = answer.body["table"]
            else:
                self.refused += 1
                table = self.get(f"/api/v1/tables/{self.table_id}").body
            time.sleep(self.rng.uniform(0, self.pace))

    def _wait_for_news(self, table: Any) -> None:
        """Nothing to do: a long-poll on the live (ASGI) server until the table moves (else a short sleep).

        A client whose long-poll gets no answer (the live server killed) falls back to polling; a 5xx is
        recorded for the checks like any other."""
        version = table.get("version", 0) if isinstance(table, dict) else 0
        if self.live is None:
            time.sleep(self.rng.uniform(0.2, 0.5))
            return
        path = f"/api/v1/tables/{self.table_id}/events?after={version}&wait=3"
        attempt = self.live.once("GET", path)
        if attempt.error in ("RemoteDisconnected", "ConnectionResetError", "BrokenPipeError"):
            attempt = self.live.once("GET", path)  # a kept-alive connection the server had closed: once more
        self.waits[str(attempt.status or attempt.error)] += 1
        if attempt.status is not None and attempt.status >= 500:
            with self.record.lock:
                self.record.server_errors.append(("live: /events?wait", attempt))
        if attempt.status != 200:
            time.sleep(self.rng.uniform(0.2, 0.5))

    def _choose(self, table: Any) -> dict[str, Any] | None:
        if not isinstance(table, dict) or not isinstance(table.get("you"), dict):
            return None
        legal = [a for a in table["you"]["legal_actions"] if a not in ("sit_out", "retire_bank")]
        if not legal:
            return None
        if "sit_in" in legal:
            return {"action": "sit_in"}
        action = self.rng.choice(legal)
        hand = table.get("hand") or {}
        if action == "bet":
            amount = table.get("fixed_stake") or hand.get("stake")
            if not amount:
                amount = self.rng.randint(table["min_bet"], table["max_bet"])
            return {"action": "bet", "amount": amount}
        if action in ("raise", "set_stake"):
            return {"action": action, "amount": table["min_bet"]}
        if action == "assign":
            return {"action": "assign", "hand": self.rng.randrange(4)}
        if action == "hit":
            mine = [p for p in hand.get("participants", []) if p["seat"] == table["you"]["seat"]]
            total = (mine[0]["hands"][0]["total_half_points"] or 0) if mine and mine[0]["hands"] else 0
            if total >= 11 and "stand" in legal and self.rng.random() < 0.8:
                return {"action": "stand"}
        return {"action": action}

