"""The casino's API, read with a player's (or an auditor's) token: what a live check fetches."""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from typing import Any


class Service:
    """The casino's API, read with a player's (or an auditor's) token."""

    def __init__(self, url: str, token: str, timeout: float = 30) -> None:
        self.base = url.rstrip("/") + "/api/v1"
        self.token = token
        self.timeout = timeout

    def get(self, path: str, **query: Any) -> Any:
        """One GET of the API: its JSON body."""
        url = self.base + path + ("?" + urllib.parse.urlencode(query) if query else "")
        request = urllib.request.Request(
            url, headers={"Authorization": f"Token {self.token}", "Accept": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=self.timeout) as response:
            return json.load(response)

    def pages(self, path: str, **query: Any) -> list[Any]:
        """Every row of a paginated list."""
        rows: list[Any] = []
        page = 1
        while True:
            body = self.get(path, page=page, page_size=200, **query)
            rows += body["results"]
            if not body.get("next"):
                return rows
            page += 1

    def events(self, table_id: int) -> list[dict[str, Any]]:
        """The table's whole events feed, oldest first."""
        events: list[dict[str, Any]] = []
        after = 0
        while True:
            body = self.get(f"/tables/{table_id}/events", after=after)
            if not body["events"]:
                return events
            events += body["events"]
            after = body["events"][-1]["seq"]
