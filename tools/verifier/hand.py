"""One hand as its export shows it (and, checked live, the table's feed): what every check reads."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Hand:
    """The hand's history, the export's events in order, the events that opened and ended the hand, its deals in
    order, and (live) the table's whole feed."""

    history: dict[str, Any]
    events: list[dict[str, Any]]
    opened: dict[str, Any]
    closed: dict[str, Any]
    deals: list[dict[str, Any]]
    feed: list[dict[str, Any]] | None

    @classmethod
    def find(
        cls, history: dict[str, Any], events: list[dict[str, Any]], feed: list[dict[str, Any]] | None
    ) -> Hand | None:
        """The hand in ``events`` (sorted by seq); None when they do not hold it from its opening to its end."""
        number = history["number"]
        opened = next((e for e in events if e["type"] == "HandOpened" and e["data"]["number"] == number), None)
        closed = next(
            (e for e in events if e["type"] in ("HandSettled", "HandAbandoned") and e["data"]["number"] == number),
            None,
        )
        if opened is None or closed is None:
            return None
        deals = sorted(history["deals"], key=lambda d: d["seq"])
        return cls(history=history, events=events, opened=opened, closed=closed, deals=deals, feed=feed)

    @property
    def number(self) -> int:
        """The hand's number at its table."""
        return int(self.history["number"])

    @property
    def first_card(self) -> int:
        """The seq of the hand's first card (of its end when no card was dealt)."""
        return int(self.deals[0]["seq"] if self.deals else self.closed["seq"])

    @property
    def seats_and_seeds_events(self) -> list[dict[str, Any]]:
        """Where seats and client seeds are read: the whole feed when live, else the export's events."""
        return self.feed if self.feed is not None else self.events
