"""The short version of the differential check (tests/rules/differential.py; docs/rules-engine.md says when to run
it in full): random play recorded here is re-run by a git revision's core in a process of its own and answered
the same, and no worktree is left behind."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _worktrees() -> list[str]:
    out = subprocess.run(["git", "-C", str(ROOT), "worktree", "list"], check=True, capture_output=True, text=True)
    return out.stdout.splitlines()


def test_a_revision_re_runs_recorded_random_play_and_answers_the_same() -> None:
    before = _worktrees()
    run = subprocess.run(
        [sys.executable, "tests/rules/differential.py", "--against", "HEAD", "--tables", "4", "--steps", "120"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip().endswith(": 0 differ"), run.stdout
    assert int(run.stdout.split()[-7]) > 300, run.stdout  # steps re-run
    assert _worktrees() == before
