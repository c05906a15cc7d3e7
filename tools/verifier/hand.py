"""One hand as its export shows it (and, checked live, the table's feed): what every check reads.

What a result is derived from is read from the events and the signed facts (API.md v1.3): the opening and closing
events, the client seed fixed at the first card, the cards dealt and who received them, the stakes, and the seats
with their client seeds (``verifier.signed``). The history beside them is only shown, and compared with them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from verifier.signed import Seat, Signatures, seats_at


@dataclass(frozen=True)
class Hand:
    """The hand's history, the export's events in order, the events that opened and ended the hand, the cards
    dealt (its ``CardDealt`` events), the client seed fixed for it, the seats at its first card (complete when read
    from signed facts), the table card a checkpoint signs (None before v1.3) and (live) the table's whole feed."""

    history: dict[str, Any]
    events: list[dict[str, Any]]
    opened: dict[str, Any]
    closed: dict[str, Any]
    dealt: list[dict[str, Any]]
    fixed: dict[str, Any] | None
    seats: dict[int, Seat]
    seats_signed: bool
    table_card: dict[str, Any] | None
    feed: list[dict[str, Any]] | None

    @classmethod
    def find(
        cls,
        history: dict[str, Any],
        events: list[dict[str, Any]],
        feed: list[dict[str, Any]] | None,
        signatures: Signatures,
    ) -> Hand | None:
        """The hand in ``events`` (sorted by seq); None when they do not hold it from its opening to its end."""
        number = history["number"]
        opened = next((e for e in events if e["type"] == "HandOpened" and e["data"]["number"] == number), None)
        closed = next(
            (e for e in events if e["type"] in ("HandSettled", "HandAbandoned") and e["data"]["number"] == number),
            None,
        )
        if opened is None or closed is None or closed["seq"] < opened["seq"]:
            return None
        inside = [e for e in events if opened["seq"] <= e["seq"] <= closed["seq"]]
        dealt = [e for e in inside if e["type"] == "CardDealt" and e["data"]["number"] == number]
        fixed = next((e for e in inside if e["type"] == "ClientSeedFixed" and e["data"]["number"] == number), None)
        first_card = dealt[0]["seq"] if dealt else closed["seq"]
        fixed_at = opened["seq"] if opened["data"].get("client_seed") else first_card
        first = events[0]["seq"] if events else 0
        base = signatures.facts_before(opened["seq"], first)
        seats, complete = seats_at(base, events, first, fixed_at)
        if base is None and feed is not None:  # live, before v1.3: the whole feed shows every seat
            seats, complete = seats_at(None, feed, 1, fixed_at)
        table_card = base["facts"] if base is not None else None
        created = events[0] if events and events[0]["seq"] == 1 and events[0]["type"] == "TableCreated" else None
        if base is None and created is not None and isinstance(created["data"].get("config"), dict):
            # the export starts at the table's creation: its table card and every seat are in the events
            table_card, complete = {"rules": created["data"]["config"].get("rules")}, True
        return cls(history, events, opened, closed, dealt, fixed, seats, complete, table_card, feed)

    @property
    def number(self) -> int:
        """The hand's number at its table."""
        return int(self.history["number"])

    @property
    def first_card(self) -> int:
        """The seq of the hand's first card (of its end when no card was dealt)."""
        return int(self.dealt[0]["seq"] if self.dealt else self.closed["seq"])

    @property
    def server_seed(self) -> str:
        """The server seed the closing event reveals ("" when none)."""
        return str(self.closed["data"].get("server_seed") or self.opened["data"].get("server_seed") or "")

    @property
    def client_seed(self) -> str:
        """The hand's client seed as the events fix it ("" when no card was dealt)."""
        if self.opened["data"].get("client_seed"):
            return str(self.opened["data"]["client_seed"])
        return str(self.fixed["data"]["client_seed"]) if self.fixed is not None else ""
