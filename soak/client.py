"""The bots' HTTP client: one keep-alive connection, every request retried with its key until a final
answer, and the dropped connections the fault injector asks for."""

from __future__ import annotations

import contextlib
import http.client
import json
import random
import socket
import threading
import time
from typing import Any

from soak.record import Attempt, Record, Request, is_final


class Client:
    """One keep-alive connection; every request answered or retried (same key) until a final answer."""

    def __init__(self, port: int, record: Record, stop: threading.Event, timeout: float = 30.0) -> None:
        self.port = port
        self.record = record
        self.stop = stop
        self.timeout = timeout
        self.token: str | None = None
        self.conn: http.client.HTTPConnection | None = None
        self.drop_next = False  # set by the fault injector: drop the connection in the middle of the next POST
        self.drops = 0
        self.retries = 0

    def _connection(self) -> http.client.HTTPConnection:
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        return self.conn

    def _reset(self) -> None:
        if self.conn is not None:
            with contextlib.suppress(Exception):
                self.conn.close()
        self.conn = None

    def once(self, method: str, path: str, body: Any = None, key: str | None = None) -> Attempt:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        if key:
            headers["Idempotency-Key"] = key
        payload = json.dumps(body).encode() if body is not None else None
        sent = time.monotonic()
        if method == "POST" and self.drop_next:
            self.drop_next = False
            self.drops += 1
            self._drop(method, path, payload, headers)
            return Attempt(sent, time.monotonic(), None, error="dropped")
        try:
            conn = self._connection()
            conn.request(method, path, body=payload, headers=headers)
            response = conn.getresponse()
            raw = response.read()
            if response.getheader("Connection", "").lower() == "close":
                self._reset()
        except (OSError, http.client.HTTPException) as exc:
            self._reset()
            return Attempt(sent, time.monotonic(), None, error=exc.__class__.__name__)
        try:
            parsed = json.loads(raw or b"null")
        except ValueError:
            parsed = raw.decode(errors="replace")[:200]
        return Attempt(
            sent,
            time.monotonic(),
            response.status,
            parsed,
            replayed=response.getheader("Idempotent-Replayed") == "true",
            retry_after=response.getheader("Retry-After"),
        )

    def _drop(self, method: str, path: str, payload: bytes | None, headers: dict[str, str]) -> None:
        """Send the request (all of it, or only its head) on a fresh connection and hang up without reading."""
        self._reset()
        whole = random.random() < 0.7
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
            head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {len(payload or b'')}\r\n"
            head += "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
            data = head.encode() + (payload or b"")
            s.sendall(data if whole else data[: len(head) // 2])
            time.sleep(random.uniform(0, 0.05))
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")  # RST

    def call(self, request: Request) -> Attempt:
        """Send until a final answer (anything but no answer, 5xx or 429), with the same key each time."""
        delay = 0.1
        while True:
            attempt = self.once(request.method, request.path, request.body, request.key)
            request.attempts.append(attempt)
            if attempt.status is not None and attempt.status >= 500:
                with self.record.lock:
                    self.record.server_errors.append((request.path, attempt))
            if is_final(attempt):
                return attempt
            self.retries += 1
            if self.stop.is_set() and time.monotonic() - request.attempts[0].sent > 120:
                return attempt  # give up only at the very end, and only after two minutes of trying
            wait = delay
            if attempt.retry_after and attempt.retry_after.isdigit():
                wait = max(wait, min(float(attempt.retry_after), 5.0))
            time.sleep(wait * random.uniform(0.5, 1.0))
            delay = min(delay * 2, 2.0)

