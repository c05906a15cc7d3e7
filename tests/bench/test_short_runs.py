"""The short versions of the database benches (bench/store.py, bench/verify_export.py, bench/ledger.py, bench/api.py,
bench/live.py; their full runs are documented in docs/performance.md): each runs as ``make bench`` runs it, with
tiny arguments, in a database of its own, and prints every figure it promises."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from urllib.parse import urlsplit

import psycopg
import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.slow


def _run_bench(script: str, *args: str, suffix: str, extra: dict[str, str] | None = None) -> str:
    """Run ``script`` with the superuser's URL, as ``devtools.devenv bench`` gives it (the bench creates its
    database, ``<database>_shortrun<suffix>``, dropped afterwards); return what it printed."""
    superuser = os.environ.get("DATABASE_SUPERUSER_URL")
    if not superuser:
        pytest.skip("a bench creates its database: needs DATABASE_SUPERUSER_URL (set by `make test`)")
    name = f"{urlsplit(superuser).path.lstrip('/')}_shortrun"  # never a real bench's database
    roles = (
        "DATABASE_SUPERUSER_URL",
        "MIGRATE_DATABASE_URL",
        "SIGNER_DATABASE_URL",
        "CASHIER_DATABASE_URL",
        "TESTS_DATABASE_URL",
    )
    env = {
        **{k: v for k, v in os.environ.items() if k not in roles},
        "DATABASE_URL": urlsplit(superuser)._replace(path=f"/{name}").geturl(),
        "PYTHONPATH": str(ROOT),
        **(extra or {}),
    }
    try:
        done = subprocess.run(
            [sys.executable, script, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
        )
    finally:
        maintenance = urlsplit(superuser)._replace(path="/postgres").geturl().replace("postgres://", "postgresql://")
        with psycopg.connect(maintenance, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}{suffix}" WITH (FORCE)')
    assert done.returncode == 0, done.stderr[-4000:]
    return done.stdout


def test_the_store_bench_prints_commands_loads_and_verifications() -> None:
    out = _run_bench("bench/store.py", "--hands", "3", "--commands", "10", suffix="_bench")
    assert re.search(r"^commands through the service: +\d+ commands/s .*; 10 commands, one thread\)$", out, re.M), out
    for label in ("from the snapshot", "warm process cache"):
        load = rf"^load, {label}: fresh table \(\d+ hands\) [\d.]+ ms; table with (\d+) settled hands"
        found = re.search(load, out, re.M)
        assert found and int(found[1]) >= 3, out
    assert "no snapshot, no cache:" in out
    assert re.search(r"^verify one hand \(fresh table\): median [\d.]+ ms", out, re.M), out
    assert re.search(r"^verify one hand \(3-hand table\): median [\d.]+ ms.*; \d+ statements$", out, re.M), out


def test_the_export_verifier_bench_prints_both_exports_verified() -> None:
    short = ["--hands", "3", "--baseline", "2", "--repeat", "2"]
    out = _run_bench("bench/verify_export.py", *short, suffix="_verify_export")
    verified = r"^{}: the export of hand #(\d+) .*: \d+ KiB, \d+ events; in process median [\d.]+ ms, fastest "
    baseline = re.search(verified.format("baseline"), out, re.M)
    big = re.search(verified.format("big table"), out, re.M)
    assert baseline and big and int(big[1]) >= 5 > int(baseline[1]), out  # 3 hands of history, 2 played after
    assert out.count("hashes recomputed from the content") == 2, out


def test_the_ledger_bench_prints_every_scenario_and_reconciles() -> None:
    short = ["--hands", "2", "--threads", "2", "--postings", "100", "--reads", "5"]
    out = _run_bench("bench/ledger.py", *short, "--house-hands", "1", "--house-threads", "1,2", suffix="_ledger_bench")
    # a hand: 4 stakes reserved and 1 settlement, each its own transaction
    assert re.search(r"^   1 thread, player bank: 2 hands, \d+ postings, 10 transactions", out, re.M), out
    house = r"^   2 threads, house bank \(each table its own house account\): 4 hands, \d+ postings, 20 transactions"
    assert re.search(house, out, re.M), out
    assert [m[1] for m in re.finditer(r"^ +([12]) +[\d,]+ +[\d,]+ +[\d.]+$", out, re.M)] == ["1", "2"], out
    assert re.search(r"^ +100 +[\d.]+ ms", out, re.M), out  # the balance read at 100 postings
    assert "4. reconcile of the whole bench database: ok" in out


def test_the_api_bench_prints_both_requests_at_both_concurrencies_and_the_profile() -> None:
    out = _run_bench(
        "bench/api.py", "--seconds", "0.3", "--workers", "1", "--threads", "4", "--profile", "--waits",
        suffix="_bench_api", extra={"BENCH_PROFILE_ROUNDS": "3"},
    )  # fmt: skip
    for conns in (8, 32):
        for name in ("bare insert", "player action"):
            assert re.search(rf"^ +{conns} {name} +\d+ +[\d.]+ +[\d.]+ +\d+$", out, re.M), out
            assert re.search(rf"^ +{conns} {name} +gunicorn +[\d.]+ +postgres +[\d.]+ +client", out, re.M), out
    assert out.count("(action / bare: rate, p50, p99)") == 2
    assert f"{conns} connections, player action:" in out  # --waits
    assert re.search(r"^  player action  wall +[\d.]+ ms  CPU", out, re.M), out  # --profile
    assert re.search(r"^(bet|hit|stand): \d+ actions, statements per action", out, re.M), out


def test_the_live_bench_prints_a_baseline_and_a_floor_every_socket_connected() -> None:
    out = _run_bench(
        "bench/live.py", "--floors", "2x4", "--seconds", "1", "--rate", "4", "--live-workers", "1", "--clients", "1",
        "--watchers", "2", suffix="_bench_live",
    )  # fmt: skip
    rows = re.findall(r"^ +2 +(\d) +(\d) +(\d) +\d+ +\d+ +(\d+) .*$", out, re.M)
    assert [(sockets, connected, still_open) for sockets, connected, still_open, _ in rows] == [
        ("2", "2", "2"),
        ("4", "4", "4"),
    ], out
    assert all(int(events) > 0 for *_, events in rows), out
    assert "(baseline: 1 per table)" in out


def test_the_slots_bench_prints_the_baseline_and_the_keepers_refresh() -> None:
    done = subprocess.run(
        [sys.executable, "bench/live_slots.py", "--sockets", "40", "--rounds", "1"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    for name in ("one refresh per socket (baseline)", "together"):
        assert re.search(rf"^{re.escape(name)} +[\d.]+ +[\d.]+ +[\d.]+$", done.stdout, re.M), done.stdout
