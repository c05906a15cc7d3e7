"""Benchmark of the exact engine (issue #41): the time to price every house-banked preset x house rule x spread
exactly, beside the simulator's time for the same cells at +-0.5%.

Usage: python bench/worth.py [--presets classic italian spanish hungarian] [--spreads 1 2 5 10] [--sim-hands 2000]

- Exact: for each preset and house rule (``banker_stands_at_hp`` 8, 10, 12), a cold engine (every cache cleared)
  prices ``flat`` and ``best_play`` at every spread; the time per rule set (all its spreads) and per cell.
- Simulator: *estimated*, not run to +-0.5% (that takes hours): a short run of ``--sim-hands`` rounds per cell
  and figure (the engine's best play, ``--punter best``, and the lab's ``standard``) on one process gives a
  rate (rounds/s) and a 95% half-width; the rounds needed for +-0.5% are ``rounds x (half-width / 0.005)^2``,
  and the time is those rounds at that rate, one core.
Split presets (spanish, hungarian) are priced by the engine's fast model of split rounds (docs/exact-worth.md).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gamemath import worth
from lab.runner import run
from lab.sim import BEST_PUNTER, Spec
from lab.worth_check import ALL_PRESETS, CHECK_SPREADS, HOUSE_RULES, table_rules

TARGET = 0.005


def _clear() -> None:
    worth.pack_of.cache_clear()
    worth.solve.cache_clear()


def _sim_seconds(spec: Spec) -> tuple[float, float]:
    """(seconds to reach +-0.5% on one core, estimated; the measured rate in rounds/s)."""
    start = time.perf_counter()
    result = run(spec, processes=1)
    seconds = time.perf_counter() - start
    rate = spec.hands / seconds
    needed = spec.hands * (result.half_width / TARGET) ** 2
    return needed / rate, rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", nargs="+", default=list(ALL_PRESETS))
    parser.add_argument("--spreads", nargs="+", type=int, default=list(CHECK_SPREADS))
    parser.add_argument("--sim-hands", type=int, default=2000, help="rounds of each short simulation (0: skip)")
    args = parser.parse_args()
    print(f"exact engine: {len(args.spreads)} spreads a rule set ({', '.join(map(str, args.spreads))}), one core")
    print(f"machine: {os.cpu_count()} cores, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    total_exact = total_sim = 0.0
    for preset in args.presets:
        for hp in HOUSE_RULES:
            rules = table_rules(preset, hp)
            fixed = 1 if rules.stake_mode == "bank_fixed" else None
            _clear()
            start = time.perf_counter()
            for spread in args.spreads:
                worth.house_worth(rules, min_bet=1, max_bet=spread, fixed_stake=fixed)
            exact = time.perf_counter() - start
            total_exact += exact
            line = f"{preset:10s} house stands at {hp:2d} hp: exact {exact:7.3f} s a rule set"
            if args.sim_hands:
                sim = 0.0
                rates = []
                for spread in args.spreads:
                    overrides = {"banker_stands_at_hp": hp}
                    common = {
                        "preset": preset,
                        "overrides": overrides,
                        "hands": args.sim_hands,
                        "chunk": args.sim_hands,
                    }
                    best_s, best_rate = _sim_seconds(Spec(**common, punter=BEST_PUNTER, max_bet=spread))  # type: ignore[arg-type]
                    flat_s, flat_rate = _sim_seconds(Spec(**common))  # type: ignore[arg-type]
                    sim += best_s + flat_s
                    rates += [best_rate, flat_rate]
                total_sim += sim
                line += (
                    f"; simulator at +-0.5% (estimated) {sim:9.0f} s ({min(rates):.0f}-{max(rates):.0f} rounds/s, "
                    f"x{sim / exact:,.0f})"
                )
            print(line, flush=True)
    print(
        f"total: exact {total_exact:.2f} s" + (f", simulator (estimated) {total_sim:,.0f} s" if args.sim_hands else "")
    )


if __name__ == "__main__":
    main()
