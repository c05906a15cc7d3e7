"""Benchmark of the outside verifier (``tools/verify_hand.py``) on a hand's export (issue #42: under 1 s for a hand
of a 10,000-hand table).

Builds two tables in a database of its own: one with ``--hands`` settled hands of history (written fast by
bench/store_history.py: each command decided by the pure rules core with the context the pipeline records and
appended with the hash chain, 500 hands per statement, no ledger postings or per-hand read models), then two hands
played through the real service (ledger, read models, signed checkpoints), and a fresh table with ``--baseline``
hands played through the service. The last settled hand of each is exported as a participant gets it
(``GET /hands/{id}/export``) and checked by the verifier with the casino's key given from outside:

  1. in this process (the tool's ``main``), ``--repeat`` times, median and fastest;
  2. as a user runs it, ``python -I -S tools/verify_hand.py FILE --public-key KEY``, interpreter start included.

Usage: python -m devtools.devenv bench bench/verify_export.py [--hands 10000] [--baseline 10] [--repeat 21]
(uses DATABASE_URL / REDIS_URL, or the embedded services; works in <database>_verify_export).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.store import _players, _setup_database, _table, policy_step  # noqa: E402
from bench.store_history import write_history  # noqa: E402


def _played_table(history: int, service_hands: int, prefix: str) -> tuple[Any, Any]:
    """A table with ``history`` hands written fast and then ``service_hands`` played through the service; its last
    settled hand and a participant of it."""
    from tables import loader, services
    from tables.models import Hand

    table, users = _table(), _players(5, prefix)
    for user in users:
        services.table_sit(table_id=table.pk, user=user)
    if history:
        started = time.perf_counter()
        write_history(table.pk, users, history)
        print(f"  {history} hands of history written in {time.perf_counter() - started:.0f} s")
        loader.forget_all()
    by_id = {str(u.pk): u for u in users}
    rng = random.Random(5)
    target = loader.load_table(table.pk).state.settled_through + service_hands
    while loader.load_table(table.pk).state.settled_through < target:
        policy_step(table.pk, by_id, rng, [])
    hand = Hand.objects.filter(table=table, status="settled").order_by("-number").first()
    assert hand is not None
    participant = next(u for u in users if hand.participants.filter(user=u).exists())
    return hand, participant


def _export(hand: Any, participant: Any, folder: Path) -> Path:
    """The hand's export as the participant downloads it, written to a file."""
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(participant)
    answer = client.get(f"/api/v1/hands/{hand.pk}/export")
    assert answer.status_code == 200, answer.content[:300]
    path = folder / f"hand-{hand.pk}.json"
    path.write_bytes(answer.content)
    return path


def _key() -> str:
    import base64

    from tables import checkpoint_signing

    key_id, raw = checkpoint_signing.public_keys()[0]
    return f"{key_id}:{base64.b64encode(raw).decode()}"


def _in_process(path: Path, key: str, repeat: int) -> tuple[float, float, str]:
    """(median, fastest) seconds of the tool's ``main`` on ``path``, and what it printed the first time."""
    sys.path.insert(0, str(ROOT / "tools"))
    from verify_hand import main as verify

    printed = ""
    samples = []
    for _ in range(repeat):
        out = io.StringIO()
        started = time.perf_counter()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            code = verify([str(path), "--public-key", key])
        samples.append(time.perf_counter() - started)
        assert code == 0, out.getvalue()
        printed = printed or out.getvalue()
    return statistics.median(samples), min(samples), printed


def _as_a_user(path: Path, key: str) -> float:
    """Seconds of one ``python -I -S tools/verify_hand.py FILE --public-key KEY``, interpreter start included."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-I", "-S", str(ROOT / "tools" / "verify_hand.py"), str(path), "--public-key", key],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin"},
    )
    elapsed = time.perf_counter() - started
    assert done.returncode == 0, done.stdout + done.stderr
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10_000, help="hands of history of the big table")
    parser.add_argument("--baseline", type=int, default=10, help="hands of the baseline table")
    parser.add_argument("--repeat", type=int, default=21, help="in-process verifications of each export")
    args = parser.parse_args()
    _setup_database("_verify_export")
    print(f"a table of {args.baseline} hands (the baseline) ...")
    small = _played_table(0, args.baseline, "s")
    print(f"a table of {args.hands} hands of history and 2 played through the service ...")
    big = _played_table(args.hands, 2, "b")
    key = _key()
    with tempfile.TemporaryDirectory() as folder:
        for label, (hand, participant) in (("baseline", small), ("big table", big)):
            path = _export(hand, participant, Path(folder))
            body = json.loads(path.read_text())
            median, fastest, printed = _in_process(path, key, args.repeat)
            user = _as_a_user(path, key)
            recomputed = next((line for line in printed.splitlines() if line.startswith("ok   chain")), "")
            print(
                f"{label}: the export of hand #{hand.number} (its table's last settled hand): "
                f"{path.stat().st_size / 1024:.0f} KiB, "
                f"{len(body['events'])} events; in process median {median * 1000:.1f} ms, fastest "
                f"{fastest * 1000:.1f} ms; as a user (python -I -S, start included) {user * 1000:.0f} ms"
            )
            print(f"  {recomputed}")


if __name__ == "__main__":
    main()
