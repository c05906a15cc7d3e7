"""A settled hand as the audit reads it from the event store (:mod:`certify.hands`): plain records, no Django."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Dealt:
    """One ``CardDealt``: where in the deck, to whom (``seat`` None and ``banker`` for the house or the banker)."""

    deck_index: int
    banker: bool
    seat: int | None
    hand: int | None


@dataclass(frozen=True, slots=True)
class Result:
    """One row of ``HandSettled.results``."""

    seat: int
    hand: int
    bet: int
    category: str
    total_hp: int
    net: int
    tie: bool


@dataclass(frozen=True, slots=True)
class HandRecord:
    """A settled hand: its table, number, revealed seeds, the cards dealt (in order) and the settlement."""

    table_id: int
    number: int
    server_seed: str
    client_seed: str
    dealt: tuple[Dealt, ...]
    results: tuple[Result, ...]
