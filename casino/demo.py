"""What `manage.py seed_demo` creates. Extended as the ledger and tables grow."""

from __future__ import annotations

from typing import Any

DEMO_OPERATOR = "operator"
DEMO_PLAYERS = ("alice", "bob", "carol", "dave")
DEMO_PASSWORD = "casino-demo-2026"
DEMO_CHIPS = 1000


def seed_chips(*, operator: Any, players: list[Any]) -> list[str]:
    """Give each demo player DEMO_CHIPS once (through the ledger, once it exists)."""
    return []


def seed_tables(*, operator: Any) -> list[str]:
    """One demo table per preset (once tables exist)."""
    return []
