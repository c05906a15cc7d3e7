"""An idle casino's console stays quiet: a real Celery worker and beat at the log level ``make run`` uses (INFO),
with the sweeper running twice a second, print nothing once started, and one line when a timeout fires."""

from __future__ import annotations

import os
import signal
import time

import pytest

from tables import services
from tables.models import Table
from tests.conftest import wait_for
from tests.support.play import make_players, make_table

pytestmark = pytest.mark.django_db(transaction=True)


def _celery(spawn, env, *args: str):  # type: ignore[no-untyped-def]
    return spawn(["-m", "celery", "-A", "casino", *args, "--loglevel=INFO"], env=env)


def _output(proc) -> str:  # type: ignore[no-untyped-def]
    os.killpg(proc.pid, signal.SIGTERM)
    out, _ = proc.communicate(timeout=20)
    return out.decode(errors="replace")


def test_worker_and_beat_print_nothing_while_idle_and_one_line_per_fired_timeout(
    spawn, celery_env, queue, tmp_path, settings
):
    worker = _celery(
        spawn,
        celery_env,
        "worker",
        "-Q",
        queue,
        "--pool=threads",
        "--concurrency=2",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
        "--hostname",
        f"{queue}@%h",
    )
    beat = _celery(spawn, celery_env, "beat", "--max-interval", "1", "--schedule", str(tmp_path / "schedule"))
    from casino.celery import app

    assert wait_for(lambda: app.control.ping(destination=[f"{queue}@{os.uname().nodename}"], timeout=0.5), 30)
    time.sleep(4)  # eight sweeps, nothing overdue

    settings.TABLE_TIMERS = False  # no timer message for this wait: as if it was lost; the sweeper must catch it
    table = make_table("classic", betting_timeout_s=1)
    for user in make_players(2, prefix="quiet"):
        services.table_sit(table_id=table.pk, user=user)
    version = Table.objects.get(pk=table.pk).waiting_version
    if not wait_for(lambda: Table.objects.get(pk=table.pk).waiting_version != version, 20):
        pytest.fail(f"the sweeper did not fire:\n{_output(worker)}\n{_output(beat)}")
    time.sleep(1.5)

    worker_out, beat_out = _output(worker), _output(beat)
    started = worker_out.split(" ready.", 1)[1] if " ready." in worker_out else worker_out
    started = started.split("Warm shutdown", 1)[0]  # what it says while stopping is not idle chatter
    lines = [ln for ln in started.splitlines() if ln.strip() and "worker: " not in ln]
    fired = [ln for ln in lines if "tables.sweep_timeouts" in ln]
    assert len(fired) == 1 and "fired=1" in fired[0], started
    assert [ln for ln in lines if ln not in fired] == [], started  # nothing else: no "received", no "succeeded"
    assert "Sending due task" not in beat_out and "sweep_timeouts" not in beat_out, beat_out
