"""The short version of bench/worth.py (its full run is documented in docs/performance.md)."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.conftest import ROOT


def test_the_worth_bench_prints_the_exact_time_and_the_simulators_estimate() -> None:
    done = subprocess.run(
        [sys.executable, "bench/worth.py", "--presets", "classic", "--spreads", "1", "2", "--sim-hands", "200"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    rows = re.findall(
        r"^classic +house stands at +(\d+) hp: exact +[\d.]+ s a rule set; simulator at \+-0\.5% "
        r"\(estimated\) +\d+ s",
        done.stdout,
        re.M,
    )
    assert rows == ["8", "10", "12"], done.stdout
    assert re.search(r"^total: exact [\d.]+ s, simulator \(estimated\) [\d,]+ s$", done.stdout, re.M), done.stdout
