"""Clients of the live (ASGI) server: a WebSocket to ``/ws/v1/tables/{id}`` and plain HTTP requests."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect


def token_of(client: Any) -> str:
    """The token an APIClient of the tests authenticates with."""
    return str(client._credentials["HTTP_AUTHORIZATION"].split()[1])


def open_as(server: str, table_id: int, client: Any) -> Socket:
    """A socket signed in as an APIClient of the tests is: with its token (players), else with its session cookie
    (staff get no token: kit/tokens.py; no ``Origin`` header, which the server allows for cookies)."""
    if "HTTP_AUTHORIZATION" in client._credentials:
        return Socket.open(server, table_id, token_of(client))
    cookie = f"sessionid={client.cookies['sessionid'].value}"
    return Socket.open(server, table_id, additional_headers={"Cookie": cookie})


@dataclass
class Socket:
    """A socket on a table: every ``events`` message received, in order, and every ``table`` message (v1.3)."""

    ws: ClientConnection
    messages: list[dict[str, Any]] = field(default_factory=list)
    tables: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def open(cls, server: str, table_id: int, token: str | None = None, **kwargs: Any) -> Socket:
        ws = connect(f"ws://{server}/ws/v1/tables/{table_id}", open_timeout=10, **kwargs).__enter__()
        socket = cls(ws)
        if token is not None:
            socket.send({"type": "auth", "token": token})
        return socket

    def send(self, message: dict[str, Any]) -> None:
        self.ws.send(json.dumps(message))

    def recv(self, timeout: float = 10) -> dict[str, Any]:
        """The next ``events`` message (``table`` messages on the way are kept in :attr:`tables`)."""
        deadline = time.monotonic() + timeout
        while True:
            message = json.loads(self.ws.recv(timeout=max(0.01, deadline - time.monotonic())))
            if message.get("type") == "table":
                self.tables.append(message["table"])
                continue
            self.messages.append(message)
            return message  # type: ignore[no-any-return]

    def table_at(self, version: int, timeout: float = 10) -> dict[str, Any]:
        """The ``table`` message at ``version`` (receiving until it comes)."""
        deadline = time.monotonic() + timeout
        while not any(view["version"] == version for view in self.tables):
            message = json.loads(self.ws.recv(timeout=max(0.01, deadline - time.monotonic())))
            if message.get("type") == "table":
                self.tables.append(message["table"])
            else:
                self.messages.append(message)
        return next(view for view in self.tables if view["version"] == version)

    @property
    def last_seq(self) -> int:
        return int(self.messages[-1]["last_seq"]) if self.messages else 0

    @property
    def events(self) -> list[dict[str, Any]]:
        return [event for message in self.messages for event in message["events"]]

    def until(self, seq: int, timeout: float = 10) -> list[dict[str, Any]]:
        """Receive until ``last_seq >= seq``; the messages received meanwhile."""
        first = len(self.messages)
        deadline = time.monotonic() + timeout
        while self.last_seq < seq:
            self.recv(timeout=max(0.01, deadline - time.monotonic()))
        return self.messages[first:]

    def close_code(self, timeout: float = 10) -> int | None:
        """Wait for the server to close; its close code."""
        try:
            while True:
                self.recv(timeout=timeout)
        except ConnectionClosed as closed:
            return closed.rcvd.code if closed.rcvd is not None else None

    def close(self) -> None:
        self.ws.close()


def http(server: str, path: str, token: str | None = None, timeout: float = 40) -> tuple[int, Any, Any]:
    """GET ``path`` from the live server: ``(status, JSON body, headers)`` (headers: case-insensitive)."""
    headers = {"Authorization": f"Token {token}"} if token else {}
    request = urllib.request.Request(f"http://{server}{path}", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read() or b"null"), response.headers
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null"), error.headers


def wait_for_free_slot(user_id: int, cap: int, timeout: float = 10) -> None:
    """Wait until the server has released a slot of the user's open waits (after a socket closed)."""
    from tables.live.limits import key
    from tables.notify import client

    deadline = time.monotonic() + timeout
    while client().zcard(key(user_id)) >= cap:
        assert time.monotonic() < deadline, "the server never released the closed socket's slot"
        time.sleep(0.05)
