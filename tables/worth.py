"""What a table is worth to a punter (API.md v1.3 "What a table is worth"; DESIGN.md principle 16).

``TableWorth`` is the one record of a table card's return to player: the table view, the lobby, ``POST
/tables/rtp``, the admin's table page, list and dashboard, the metric and the player client all show it, built
here and nowhere else.

- **House bank**: exact, from the table card alone (``gamemath.worth.house_worth``: ``best_play`` within the
  limits and ``flat`` at the minimum stake), ``method`` ``"exact"``, ``margin`` 0.
- **Player bank**: ``best_play`` is None (the banker is a person) and ``flat`` is simulated against the documented
  banker strategy with its 95% margin: the lab's per-rule-set figure (``lab.HouseEdge``, one Celery task per rule
  set, see docs/house-edge.md), ``1 - edge``. Until that task has stored it, ``flat`` and ``margin`` are None
  (``status`` ``"computing"``, or ``"failed"``); the API then shows them as ``null``.

A table card's figure never changes, so it is cached by what it depends on (the resolved rules, the limits, the
bank and the engine's code): in this process, then in the shared cache (Redis), computed at most once per rule
set and limits. A simulated figure is cached in this process once it is known (until then the lab's row is read
again, at most every ``_PENDING_TTL_S``).

**The guard** (:func:`guard`): a house-banked table whose ``best_play`` exceeds ``settings.MAX_RTP`` or whose
``flat`` is below ``settings.MIN_RTP`` is refused with ``rules_refused`` (:class:`tables.errors.RulesRefused`),
with the largest ``max_bet`` that would pass. ``tables.services.table_create`` calls it, so the API and the admin
share it; the rules core stays the judge of which combinations are valid at all.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any, Literal

from django.conf import settings
from django.core.cache import cache as shared_cache

from gamemath import worth as engine
from lab.models import DONE, FAILED, HouseEdge
from lab.services import house_edge_key, request_house_edges
from rules import TableConfig, event_from_json
from tables.errors import RulesRefused
from tables.models import Event, Table

Method = Literal["exact", "simulated"]
Status = Literal["known", "computing", "failed"]
Reason = Literal["player_advantage", "below_minimum"]

#: Places of the decimal strings the API shows ("0.9731").
PLACES = 4
#: Seconds a player-bank figure that is not known yet is read from this process's memory before the lab's row is
#: read again.
_PENDING_TTL_S = 10.0
#: What a player-bank figure that is not known says instead.
PENDING_WORDS = {
    "computing": "the simulation of this rule set has not finished: flat and margin are null until it has",
    FAILED: "the simulation of this rule set failed: flat and margin are null",
}
#: The largest max_bet a table may have (tables.api.serializers.MAX_TABLE_BET; repeated here, a layer below).
MAX_TABLE_BET = 100_000


@dataclass(frozen=True, slots=True)
class TableWorth:
    """A table card's return to player: per chip staked, exact fractions (or the simulation's figure)."""

    best_play: Fraction | None  # None: a player bank (the banker is a person)
    flat: Fraction | None  # None: a player bank's simulation not finished (or failed)
    method: Method
    margin: Fraction | None  # the 95% half-width; 0 when exact; None while unknown
    assumptions: tuple[str, ...]
    status: Status = "known"

    def published(self) -> dict[str, Any]:
        """API.md's ``rtp``: each figure a decimal string (``"0.9731"``), ``null`` where there is none."""
        return {
            "best_play": decimal(self.best_play),
            "flat": decimal(self.flat),
            "method": self.method,
            "margin": decimal(self.margin),
            "assumptions": list(self.assumptions),
        }


def decimal(value: Fraction | None, places: int = PLACES) -> str | None:
    """``value`` as a decimal string of ``places`` places (rounded half to even, exactly); ``"0"`` for zero."""
    if value is None:
        return None
    if value == 0:
        return "0"
    scaled = round(Fraction(value) * 10**places)  # Fraction.__round__: exact, half to even
    sign = "-" if scaled < 0 else ""
    whole, part = divmod(abs(scaled), 10**places)
    return f"{sign}{whole}.{part:0{places}d}"


def percent(value: Fraction | None, places: int = 2) -> str:
    """``value`` as a percentage for people (``97.31%``; ``—`` when there is none)."""
    text = decimal(value * 100, places) if value is not None else None
    return "—" if text is None else f"{text}%"


# --- the figure of a table card ------------------------------------------------------------------------------------


@cache
def _engine_digest() -> str:
    """A digest of the exact engine's code: a changed engine never reads a figure its predecessor cached."""
    folder = Path(engine.__file__).parent
    digest = hashlib.sha256()
    for path in sorted(folder.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def _card_key(config: TableConfig) -> str:
    data = {
        "rules": config.rules.to_dict(),
        "min_bet": config.min_bet,
        "max_bet": config.max_bet,
        "fixed_stake": config.fixed_stake,
        "engine": _engine_digest(),
    }
    return "rtp:exact:" + hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


_exact_memo: dict[str, TableWorth] = {}
_memo_lock = threading.Lock()


def _exact(config: TableConfig) -> TableWorth:
    key = _card_key(config)
    found = _exact_memo.get(key)
    if found is not None:
        return found
    stored = shared_cache.get(key)
    if isinstance(stored, dict):
        worth = TableWorth(
            best_play=Fraction(stored["best_play"]),
            flat=Fraction(stored["flat"]),
            method="exact",
            margin=Fraction(0),
            assumptions=tuple(stored["assumptions"]),
        )
    else:
        figure = engine.house_worth(
            config.rules, min_bet=config.min_bet, max_bet=config.max_bet, fixed_stake=config.fixed_stake
        )
        worth = TableWorth(
            best_play=figure.best_play,
            flat=figure.flat,
            method="exact",
            margin=Fraction(0),
            assumptions=tuple(figure.assumptions),
        )
        shared_cache.set(
            key,
            {"best_play": str(figure.best_play), "flat": str(figure.flat), "assumptions": list(worth.assumptions)},
            timeout=None,
        )
    with _memo_lock:
        _exact_memo[key] = worth
    return worth


_simulated_memo: dict[str, tuple[float, TableWorth]] = {}


def _simulated_assumptions(row: HouseEdge) -> tuple[str, ...]:
    spec = row.spec or {}
    return (
        f"flat is simulated: {row.rounds or spec.get('hands', '?'):,} rounds of {spec.get('punters', '?')} punters "
        f"playing the default strategy ({spec.get('punter', '?')}) against the documented banker strategy "
        f"({spec.get('banker', '?')}), seed {spec.get('seed', '?')}; margin is the 95% half-width",
        "best_play is not given: the banker is a player, whose play the casino does not publish",
    )


def _from_row(row: HouseEdge) -> TableWorth:
    if row.status == DONE and row.edge is not None and row.half_width is not None:
        return TableWorth(
            best_play=None,
            flat=1 - Fraction(row.edge),
            method="simulated",
            margin=Fraction(row.half_width),
            assumptions=_simulated_assumptions(row),
        )
    return TableWorth(
        best_play=None,
        flat=None,
        method="simulated",
        margin=None,
        assumptions=(PENDING_WORDS[FAILED if row.status == FAILED else "computing"],),
        status="failed" if row.status == FAILED else "computing",
    )


def _simulated(configs: list[TableConfig]) -> dict[str, TableWorth]:
    """The player-bank figures of ``configs`` by lab key: from memory, else one read of the lab's rows (which
    creates and enqueues the rule sets nobody asked for yet)."""
    now = time.monotonic()
    found: dict[str, TableWorth] = {}
    missing: list[TableConfig] = []
    for config in configs:
        key = house_edge_key(config)
        memo = _simulated_memo.get(key)
        if memo is not None and (memo[1].status == "known" or memo[0] > now):
            found[key] = memo[1]
        else:
            missing.append(config)
    if missing:
        for key, row in request_house_edges(missing).items():
            worth = _from_row(row)
            with _memo_lock:
                _simulated_memo[key] = (now + _PENDING_TTL_S, worth)
            found[key] = worth
    return found


def worth_of(config: TableConfig) -> TableWorth:
    """The worth of one table card."""
    if config.house_bank:
        return _exact(config)
    return _simulated([config])[house_edge_key(config)]


def worths_of(configs: Mapping[int, TableConfig]) -> dict[int, TableWorth]:
    """The worth of several table cards (the lobby, the admin's list): at most one database read for all the
    player banks among them."""
    players = [c for c in configs.values() if not c.house_bank]
    simulated = _simulated(players) if players else {}
    return {
        table_id: _exact(config) if config.house_bank else simulated[house_edge_key(config)]
        for table_id, config in configs.items()
    }


def table_configs(table_ids: Iterable[int]) -> dict[int, TableConfig]:
    """The table cards of these tables, from their first events (``TableCreated``), in one read."""
    ids = list(table_ids)
    if not ids:
        return {}
    rows = Event.objects.filter(table_id__in=ids, version=1, type="TableCreated").values_list("table_id", "data")
    return {table_id: event_from_json({"type": "TableCreated", **data}).config for table_id, data in rows}


def worths_of_tables(table_ids: Iterable[int]) -> dict[int, TableWorth]:
    """The worth of each of these tables (a table with no first event yet is left out)."""
    return worths_of(table_configs(table_ids))


# --- the guard ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a house-banked table card is outside the casino's limits (API.md ``rules_refused`` details)."""

    reason: Reason
    rtp: TableWorth
    limit: Fraction
    max_bet_allowed: int | None

    def details(self) -> dict[str, Any]:
        return {
            "reason": self.reason,
            "rtp": self.rtp.published(),
            "limit": decimal(self.limit),
            "max_bet_allowed": self.max_bet_allowed,
        }

    def sentence(self) -> str:
        if self.reason == "player_advantage":
            allowed = (
                f"; the largest max_bet that passes is {self.max_bet_allowed}"
                if self.max_bet_allowed is not None
                else "; no max_bet passes with these rules"
            )
            return (
                f"a punter playing perfectly gets back {percent(self.rtp.best_play)} of his stakes at this table, "
                f"more than the casino's maximum of {percent(self.limit)}{allowed}"
            )
        return (
            f"this table returns {percent(self.rtp.flat)} to a punter staking the minimum, less than the minimum "
            f"of {percent(self.limit)}"
        )


def limits() -> tuple[Fraction, Fraction]:
    """``(MIN_RTP, MAX_RTP)`` of the settings, as fractions."""
    return Fraction(str(settings.MIN_RTP)), Fraction(str(settings.MAX_RTP))


def _max_bet_allowed(config: TableConfig, max_rtp: Fraction) -> int | None:
    allowed = engine.max_bet_allowed(
        config.rules, min_bet=config.min_bet, fixed_stake=config.fixed_stake, max_rtp=max_rtp
    )
    if allowed is None or allowed < config.min_bet:
        return None
    return min(allowed, MAX_TABLE_BET)


def judge(config: TableConfig, worth: TableWorth | None = None) -> Refusal | None:
    """Why the settings' limits refuse this table card, or None (a player bank is never refused)."""
    if not config.house_bank:
        return None
    worth = worth or worth_of(config)
    low, high = limits()
    assert worth.best_play is not None and worth.flat is not None  # exact
    if worth.best_play > high:
        allowed = _max_bet_allowed(config, high) if worth.flat >= low else None
        return Refusal(reason="player_advantage", rtp=worth, limit=high, max_bet_allowed=allowed)
    if worth.flat < low:
        return Refusal(reason="below_minimum", rtp=worth, limit=low, max_bet_allowed=None)
    return None


def guard(config: TableConfig) -> TableWorth:
    """The table card's worth, or :class:`RulesRefused` when a house bank is outside ``MIN_RTP``-``MAX_RTP``."""
    worth = worth_of(config)
    refusal = judge(config, worth)
    if refusal is not None:
        raise RulesRefused(refusal.sentence(), refusal.details())
    return worth


def outside_limits(configs: Mapping[int, TableConfig]) -> dict[int, Refusal]:
    """The tables among these whose card the settings' limits refuse now (tables opened before the limits, or
    before a change of them), with why."""
    worths = worths_of({k: c for k, c in configs.items() if c.house_bank})
    found = {}
    for table_id, worth in worths.items():
        refusal = judge(configs[table_id], worth)
        if refusal is not None:
            found[table_id] = refusal
    return found


def house_tables_outside_limits() -> dict[int, Refusal]:
    """Every house-banked table outside the limits now (the admin's dashboard and list, the metric)."""
    ids = Table.objects.filter(bank="house").values_list("id", flat=True)
    return outside_limits(table_configs(ids))
