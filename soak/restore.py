"""The restore drill (docs/operations.md, "Backups and restore"): pgBackRest on the soak's Patroni set.

A full backup once the database is migrated, before the bots play; in the middle of the play an incremental
backup, then the moment T: what the casino's database holds then (closed hands, signed checkpoints), and marks
committed just before and just after T. After the checks, a scratch cluster is restored to T from the repository
(the latest backup before T and the archived WAL after it, across every failover's timeline) and checked: the
mark before T is there and the one after it is not, every closed hand and signed checkpoint seen at T is there,
``verify_hands --all`` (commitment, shuffle, replay, ledger, chain, checkpoints) and ``reconcile`` pass on it,
and three hands exported from it pass the outside verifier (tools/verify_hand.py).
Measured: how long the restore took until the restored cluster accepted connections (recovery time), and how
far the restore point is from T (the mark's time before T).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from devtools.ha import HaSet
from devtools.pgcluster import libpq
from kit import dburl
from soak.checks import run_command
from soak.log import say
from soak.record import Record
from soak.stack import Stack
from soak.timing import wait_until

MARKS = "CREATE TABLE IF NOT EXISTS restore_marks (name text PRIMARY KEY, at timestamptz NOT NULL)"


@dataclass
class Moment:
    """T and what the casino's database held at T."""

    target: str = ""  # T, as PostgreSQL writes a timestamptz (pgBackRest's --target)
    before_at: float = 0.0  # seconds between the "before" mark's commit time and T
    hands: set[int] = field(default_factory=set)
    checkpoints: set[int] = field(default_factory=set)
    signed_hands: set[int] = field(default_factory=set)  # settled hands a signed checkpoint covered at T


class RestoreDrill:
    """The backups during the run and the restore after it; see the module's text."""

    def __init__(self, stack: Stack, record: Record, lock: threading.Lock) -> None:
        assert isinstance(stack.postgres, HaSet)
        self.stack = stack
        self.ha = stack.postgres
        self.record = record
        self.lock = lock  # the injector's database lock: no database fault during a backup
        self.moment = Moment()
        self.figures: dict[str, Any] = {}
        self.thread: threading.Thread | None = None

    def _superuser(self, database: str) -> str:
        return libpq(self.ha.url(database))

    def full_backup(self) -> None:
        with self.lock:
            started = time.monotonic()
            self.ha.backups.backup("full")
            self.figures["full_backup_s"] = round(time.monotonic() - started, 2)
        say(f"pgBackRest: full backup in {self.figures['full_backup_s']} s")

    def mark(self) -> None:
        """The incremental backup, then T (under the database lock: no failover meanwhile)."""
        import psycopg

        with self.lock:
            wait_until(self.ha.whole, 90, 0.2)  # (a primary to back up, after the last database fault)
            started = time.monotonic()
            self.ha.backups.backup("incr")
            self.figures["incremental_backup_s"] = round(time.monotonic() - started, 2)
            with psycopg.connect(self._superuser("postgres"), autocommit=True, connect_timeout=5) as c:
                c.execute(MARKS)
                c.execute("INSERT INTO restore_marks VALUES ('before', clock_timestamp())")
                with psycopg.connect(self._superuser(self.stack.database), connect_timeout=5) as db:
                    hands = db.execute("SELECT id FROM tables_hand WHERE status <> 'in_play'").fetchall()
                    signed = db.execute(  # settled hands, with a player, whose end a signed checkpoint covers
                        "SELECT h.id FROM tables_hand h WHERE h.status = 'settled' AND EXISTS (SELECT 1 FROM "
                        "tables_checkpoint c WHERE c.table_id = h.table_id AND c.version >= h.closed_version) "
                        "AND EXISTS (SELECT 1 FROM tables_handparticipant p WHERE p.hand_id = h.id)"
                    ).fetchall()
                    checkpoints = db.execute("SELECT id FROM tables_checkpoint").fetchall()
                row = c.execute(
                    "SELECT clock_timestamp()::text, extract(epoch FROM clock_timestamp() - at) FROM restore_marks"
                ).fetchone()
                assert row is not None
                self.moment = Moment(row[0], float(row[1]), {h for (h,) in hands}, {k for (k,) in checkpoints})
                self.moment.signed_hands = {h for (h,) in signed}
                time.sleep(1)
                c.execute("INSERT INTO restore_marks VALUES ('after', clock_timestamp())")
        say(
            f"pgBackRest: incremental backup in {self.figures['incremental_backup_s']} s; T = {self.moment.target} "
            f"({len(self.moment.hands)} closed hands, {len(self.moment.checkpoints)} signed checkpoints)"
        )

    def start(self, mark_at: float) -> threading.Thread:
        """On a thread of its own: the full backup now (the database faults come later, in the run's middle
        third, and wait for it), then :meth:`mark` ``mark_at`` seconds from now."""
        started = time.monotonic()

        def run() -> None:
            try:
                self.full_backup()
                time.sleep(max(0.0, started + mark_at - time.monotonic()))
                self.mark()
            except Exception as exc:
                self.record.violation(f"the restore drill's backup failed: {exc.__class__.__name__}: {exc}")

        self.thread = threading.Thread(target=run, name="backup", daemon=True)
        self.thread.start()
        return self.thread

    def _outside_verifier(self, env: dict[str, str], hands: list[int]) -> bool:
        """A few settled hands signed by T (the first, the middle, the last), exported from the restored database as
        ``GET /hands/{id}/export`` answers their player, checked by the outside verifier (tools/verify_hand.py,
        standard library only) with the casino's public checkpoint keys: whether every one verifies."""
        import subprocess
        import sys

        from soak.services import ROOT

        chosen = sorted({hands[0], hands[len(hands) // 2], hands[-1]}) if hands else []
        directory = self.stack.workdir / "exports"
        directory.mkdir(exist_ok=True)
        code = (
            "import json\n"
            "from rest_framework.test import APIClient\n"
            "from tables.models import HandParticipant\n"
            f"for hand_id in {chosen!r}:\n"
            "    client = APIClient()\n"
            "    client.force_authenticate(HandParticipant.objects.filter(hand_id=hand_id).first().user)\n"
            "    answer = client.get(f'/api/v1/hands/{hand_id}/export', HTTP_HOST='localhost')\n"
            "    assert answer.status_code == 200, (hand_id, answer.status_code, answer.content[:500])\n"
            f"    open(f'{directory}/hand-{{hand_id}}.json', 'w').write(json.dumps(answer.json()))\n"
        )
        ok, output = run_command(self.stack, "shell", "-c", code, env=env)
        if not ok:
            self.record.violation(f"restored to T, exporting hands {chosen} failed:\n{output[-3000:]}")
            return False
        keys = [f"--public-key={line.strip()}" for line in env.get("CHECKPOINT_PUBLIC_KEYS", "").splitlines() if line]
        verified = 0
        for hand_id in chosen:
            done = subprocess.run(
                [sys.executable, "tools/verify_hand.py", str(directory / f"hand-{hand_id}.json"), *keys],
                cwd=ROOT, capture_output=True, text=True, check=False, timeout=120,
            )  # fmt: skip
            verified += done.returncode == 0
            if done.returncode:
                self.record.violation(f"restored to T, tools/verify_hand.py on hand {hand_id}:\n{done.stdout[-2000:]}")
        self.figures["exported_hands_verified"] = f"{verified} of {len(chosen)}"
        return verified == len(chosen)

    def restore_and_check(self) -> str:
        """Restore to T and check the restored database; the verdict ("ok" or "FAILED")."""

        if self.thread is not None:
            self.thread.join(300)
        say("restore drill: a scratch cluster restored to T")
        if not self.moment.target:
            self.record.violation("the restore drill has no moment T (its backup failed)")
            return "FAILED"
        import psycopg

        with psycopg.connect(self._superuser("postgres"), autocommit=True, connect_timeout=5) as c:
            c.execute("SELECT pg_switch_wal()")  # (T's WAL is archived by now: archive_timeout; this is for speed)
        time.sleep(1)
        try:
            restored = self.ha.backups.restore(self.moment.target, self.stack.workdir / "restored")
        except Exception as exc:
            self.record.violation(f"the restore to T failed: {exc}")
            return "FAILED"
        cluster = restored.cluster
        try:
            marks = {name for (name,) in cluster.query("SELECT name FROM restore_marks")}
            hands = {h for (h,) in cluster.query("SELECT id FROM tables_hand WHERE status <> 'in_play'",
                                                 self.stack.database)}  # fmt: skip
            checkpoints = {k for (k,) in cluster.query("SELECT id FROM tables_checkpoint", self.stack.database)}
            if marks != {"before"}:
                self.record.violation(f"restored to T, the marks are {sorted(marks)} (want only 'before')")
            if not self.moment.hands <= hands:
                self.record.violation(f"restored to T, closed hands are missing: {sorted(self.moment.hands - hands)}")
            if not self.moment.checkpoints <= checkpoints:
                missing = sorted(self.moment.checkpoints - checkpoints)
                self.record.violation(f"restored to T, signed checkpoints are missing: {missing}")
            # the programs' own commands, as the application's role, on the restored database
            env = dict(self.stack.env)
            for variable in ("DATABASE_URL", "MIGRATE_DATABASE_URL", "SIGNER_DATABASE_URL"):
                if variable in env:
                    one = dburl.with_hosts(env[variable], [("127.0.0.1", str(cluster.port))])
                    env[variable] = one.split("?")[0]
            verdicts = []
            for command in (("verify_hands", "--all"), ("reconcile",)):
                ok, output = run_command(self.stack, *command, "--progress", "off", env=env)
                verdicts.append(ok)
                if not ok:
                    self.record.violation(f"restored to T, {' '.join(command)} failed:\n{output[-3000:]}")
            # (a hand whose end no checkpoint covered yet at T is checked by verify_hands, not by the outside verifier:
            # it verifies only what a signed checkpoint covers)
            verdicts.append(self._outside_verifier(env, sorted(self.moment.signed_hands)))
            self.figures.update(
                target=self.moment.target,
                restore_s=round(restored.restore_s, 2),
                recovery_time_s=round(restored.ready_s, 2),
                recovery_point_gap_s=round(self.moment.before_at, 3),
                hands_at_t=len(self.moment.hands),
                hands_signed_at_t=len(self.moment.signed_hands),
                hands_restored=len(hands),
                checkpoints_at_t=len(self.moment.checkpoints),
                checkpoints_restored=len(checkpoints),
            )
            say(
                f"restored to T in {self.figures['recovery_time_s']} s (files {self.figures['restore_s']} s): "
                f"{len(hands)} closed hands, {len(checkpoints)} checkpoints; verify_hands and reconcile "
                + ("pass" if all(verdicts) else "FAIL")
            )
        finally:
            cluster.stop("immediate")
        ok = all(verdicts) and marks == {"before"} and self.moment.hands <= hands
        return "ok" if ok and self.moment.checkpoints <= checkpoints else "FAILED"
