"""The short version of bench/audit.py (its full run is in docs/performance.md): synthetic hands written, the
baseline, the read alone and the audit printed, on two processes, and nothing flagged (the synthetic hands are
dealt and settled by the published rules)."""

from __future__ import annotations

import re

import pytest

from tests.bench.test_short_runs import _run_bench

pytestmark = pytest.mark.slow


def test_the_audit_bench_prints_the_baseline_the_read_and_the_audit() -> None:
    args = ["--hands", "600", "--tables", "2", "--baseline", "100", "--workers", "2"]
    out = _run_bench("bench/audit.py", *args, suffix="_audit_bench")
    assert re.search(r"^600 synthetic hands written in \d+ s$", out, re.M), out
    assert re.search(r"^baseline: [\d,]+ hands audited in [\d.]+ s", out, re.M), out
    assert re.search(r"^read alone: 600 hands read in [\d.]+ s", out, re.M), out
    assert re.search(r"^audit: 600 hands in [\d.]+ s \([\d,]+ hands/s\); flagged: none$", out, re.M), out
