"""The short version of the rules core's comparison bench (bench/engine_replay.py; the full run is documented in
docs/performance.md): it measures this checkout and a git revision side by side, and leaves no worktree behind."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _worktrees() -> list[str]:
    out = subprocess.run(["git", "-C", str(ROOT), "worktree", "list"], check=True, capture_output=True, text=True)
    return out.stdout.splitlines()


def test_the_replay_bench_prints_both_versions_and_their_ratio() -> None:
    before = _worktrees()
    short = ["--hands", "5", "--passes", "1", "--rounds", "1", "--preset", "classic", "--preset", "hungarian"]
    out = subprocess.run(
        [sys.executable, "bench/engine_replay.py", *short, "--against", "HEAD"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    ).stdout
    rows = {
        m[1]: (float(m[2]), float(m[3]), float(m[4]))
        for m in re.finditer(r"^(\w+)\s+(\d+)us\s+(\d+)us\s+([\d.]+)x$", out, re.M)
    }
    assert set(rows) == {"classic", "hungarian"}, out
    for against, here, ratio in rows.values():
        assert against > 0 and here > 0 and abs(ratio - against / here) < 0.02 + 0.01 * ratio
    assert _worktrees() == before
