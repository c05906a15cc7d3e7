"""Benchmark of the house-edge lab: hands per second per core and in total, against a one-process baseline.

Usage: python bench/simulate.py [--hands 1000000] [--baseline-hands 20000] [--preset classic] [--bank house]

1. Baseline, measured in the same run: ``--baseline-hands`` rounds on one process.
2. The run: ``--hands`` rounds on every core (``lab.runner.run``), with the edge and its 95% interval.
Prints both rates, the parallel efficiency (total / (processes x baseline)), the machine's load average and a
calibration (``sum(range(1000))``) so figures from a loaded, shared machine can be read for what they are.
The target of issue #17: 1,000,000 classic hands with a house bank, edge within +-0.2%, in at most 5 minutes.
"""

from __future__ import annotations

import argparse
import os
import sys
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lab.cli import run_with_progress
from lab.runner import default_processes, run
from lab.sim import Spec


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--baseline-hands", type=int, default=20_000)
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--bank", default="house")
    parser.add_argument("--processes", type=int, default=0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    processes = args.processes or default_processes()
    calibration = min(timeit.repeat("sum(range(1000))", number=2000, repeat=5)) / 2000 * 1e6
    print(f"house-edge lab: {args.preset}, {args.bank} bank, default strategies, {processes} processes")
    print(
        f"machine: {os.cpu_count()} cores, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}, "
        f"calibration sum(range(1000)) = {calibration:.1f} us"
    )
    base = Spec(preset=args.preset, bank=args.bank, hands=args.baseline_hands, seed=args.seed + 1000)
    baseline = run(base, processes=1)
    one = baseline.tally.rounds / baseline.seconds
    print(f"baseline, 1 process : {baseline.tally.rounds:>9,} hands in {baseline.seconds:7.1f} s = {one:8,.0f} hands/s")
    spec = Spec(preset=args.preset, bank=args.bank, hands=args.hands, seed=args.seed)
    result = run_with_progress(spec, processes, label="bench")
    total = result.tally.rounds / result.seconds
    print(
        f"run, {result.processes} processes   : {result.tally.rounds:>9,} hands in {result.seconds:7.1f} s = "
        f"{total:8,.0f} hands/s in total, {total / result.processes:8,.0f} per core "
        f"(parallel efficiency {total / (result.processes * one):.0%} of the baseline)"
    )
    print(
        f"edge {100 * result.edge:.3f}% +- {100 * result.half_width:.3f}% (95%); "
        f"load average now {' '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )
    ok = result.seconds <= 300 and result.half_width <= 0.002
    print(f"target (<= 300 s, +-0.2%): {'met' if ok else 'NOT met'}")


if __name__ == "__main__":
    main()
