"""A run of the simulator: a spec's fixed chunks, each a fresh :class:`lab.sim.SimTable`, played on every core,
their tallies merged into a :class:`Result`.

The chunks are the same whatever the number of processes (:func:`chunks`), and their tallies are integer sums,
so 1 and N processes give identical results. Processes are forked when that is safe, else started by a fork
server (:func:`_start_method`).
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from rules import Rules

from .sim import ENGINE_VERSION, SimTable, Spec, chunk_seed
from .stats import Tally
from .strategies import banker_strategy, punter_strategy


def chunks(spec: Spec) -> list[tuple[Spec, int, int]]:
    """The fixed work units of a run: (spec, chunk index, rounds)."""
    full, rest = divmod(spec.hands, spec.chunk)
    sizes = [spec.chunk] * full + ([rest] if rest else [])
    return [(spec, i, n) for i, n in enumerate(sizes)]


def play_chunk(unit: tuple[Spec, int, int]) -> tuple[int, Tally]:
    """Play one chunk on a fresh table; returns (chunk index, its tally)."""
    spec, index, rounds = unit
    table = SimTable(spec, chunk_seed(spec.seed, index))
    return index, table.play(rounds)


def default_processes() -> int:
    """Every core this process may use (1 inside a daemonic process, which may not have children)."""
    if multiprocessing.current_process().daemon:
        return 1
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


@dataclass
class Progress:
    """What a progress callback sees after each chunk."""

    done: int
    total: int
    seconds: float
    tally: Tally


def run(spec: Spec, processes: int | None = None, progress: Callable[[Progress], None] | None = None) -> Result:
    """Play ``spec`` on ``processes`` processes (default: every core) and return the merged result."""
    rules = spec.validate()
    processes = max(1, min(processes or default_processes(), len(chunks(spec))))
    tally = Tally()
    start = time.perf_counter()
    units = chunks(spec)
    for _index, part in _map(units, processes):
        tally.merge(part)
        if progress is not None:
            progress(Progress(tally.rounds, spec.hands, time.perf_counter() - start, tally))
    seconds = time.perf_counter() - start
    return Result(spec, rules, tally, seconds, processes)


def _map(units: list[tuple[Spec, int, int]], processes: int) -> Iterator[tuple[int, Tally]]:
    if processes == 1:
        yield from map(play_chunk, units)
        return
    context = multiprocessing.get_context(_start_method())
    with context.Pool(processes) as pool:
        yield from pool.imap_unordered(play_chunk, units)


def _start_method() -> str | None:
    """``fork`` (cheapest: the children inherit the imported core) unless this process runs threads, which a
    forked child would inherit half-way (a test runner, a threaded worker): then ``forkserver``."""
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return "fork"
    return "forkserver" if "forkserver" in methods else None


@dataclass
class Result:
    """A finished run: the spec, the resolved rules, the merged tally and how long it took."""

    spec: Spec
    rules: Rules
    tally: Tally
    seconds: float
    processes: int

    @property
    def edge(self) -> float:
        return self.tally.edge

    @property
    def half_width(self) -> float:
        return self.tally.half_width

    def to_json(self) -> dict[str, Any]:
        t = self.tally
        return {
            "spec": self.spec.to_json(),
            "punter_strategy": punter_strategy(self.spec.punter).describe(),
            "banker_strategy": (
                banker_strategy(self.spec.banker).describe()
                if self.spec.bank == "player"
                else f"house rule: draw below {self.rules.banker_stands_at_hp} hp"
            ),
            "rules": self.rules.to_dict(),
            "edge": t.edge,
            "ci95": [t.edge - t.half_width, t.edge + t.half_width],
            "half_width": t.half_width,
            "rounds": t.rounds,
            "punter_hands": t.punter_hands,
            "staked": t.staked,
            "bank_net": t.bank_net,
            "frequencies": t.frequencies(),
            "tally": t.to_json(),
            "engine_version": ENGINE_VERSION,
            "processes": self.processes,
            "seconds": round(self.seconds, 3),
            "hands_per_second": round(t.rounds / self.seconds, 1) if self.seconds else None,
        }
