"""The soak's run (the package's docstring says what it does): the stack up, the bots at their tables, faults while
they play, the stack at rest, then every check and the summary."""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import shutil
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from devtools.ha import HaSet
from kit.progress import progress
from soak.bots import Bot
from soak.checks import check_all, closed_hands
from soak.faults import Injector
from soak.log import say
from soak.monitors import HealthMonitor, TimerWatchdog
from soak.record import Record
from soak.report import summarise, write_timeline
from soak.restore import RestoreDrill
from soak.seating import setup_tables
from soak.stack import Stack
from soak.timing import SWEEP_GRACE_S, SWEEP_INTERVAL_S, TURN_TIMEOUT_S


@contextlib.contextmanager
def workdir(keep: bool) -> Iterator[Path]:
    """A temporary directory for the private services' data and the logs, removed afterwards unless ``keep``."""
    path = Path(tempfile.mkdtemp(prefix="casino-soak-"))
    os.chmod(path, 0o755)
    try:
        yield path
    finally:
        if keep:
            say(f"kept {path}")
        else:
            shutil.rmtree(path, ignore_errors=True)


def soak(args: argparse.Namespace) -> dict[str, Any]:
    """One soak with the options of ``python -m soak`` (soak/cli.py), in a temporary directory: its summary."""
    with workdir(args.keep) as directory:
        stack = Stack(
            directory,
            args.web_workers,
            args.threads,
            getattr(args, "database_url", None),
            getattr(args, "pgdata", None),
        )
        try:
            return _soak(stack, args)
        finally:
            say("stopping the stack")
            stack.shutdown()


def _soak(stack: Stack, args: argparse.Namespace) -> dict[str, Any]:
    """The run, step by step: the stack up, the bots at their tables, faults while they play, the stack at rest,
    then the checks and the summary."""
    record = Record()
    seats = _start_stack(stack, args)
    stop_bots = threading.Event()
    bots = _seat_bots(stack, record, seats, args, stop_bots)
    watchers = Watchers.start(stack, record, bots, args)
    drill = None
    if isinstance(stack.postgres, HaSet) and stack.postgres.archive:  # pgBackRest: the restore drill
        drill = RestoreDrill(stack, record, watchers.injector.database_lock)
        drill.start(args.seconds / 2)
    _play(args, record, bots)
    stuck = _wind_down(stack, record, bots, stop_bots, watchers)
    findings = check_all(stack, record, stuck)
    if drill is not None:
        findings.checks["a restore to a moment T verifies (pgBackRest)"] = drill.restore_and_check()
    if args.keep:  # the timeline, for whoever investigates a failure
        write_timeline(record, stack.workdir / "timeline.json")
    summary = summarise(
        args, record, bots, findings, hands_closed=closed_hands(stack), behind_proxy=stack.edge_port is not None
    )
    if drill is not None:
        summary["restore"] = drill.figures
    return summary


def _start_stack(stack: Stack, args: argparse.Namespace) -> list[tuple[str, int, str, int]]:
    """The private services, the database migrated, the players and tables made, every process started and
    ready; the bots' seats."""
    stack.start_services()
    stack.migrate()
    seats = setup_tables(stack, args.bots_per_table, args.presets)
    stack.define_processes()
    stack.start_all()
    edge = f", behind nginx on :{stack.edge_port}" if stack.edge_port is not None else " (no nginx: not behind a proxy)"
    web = f"gunicorn {args.web_workers}x{args.threads} on :{stack.web_port}"
    say(f"stack up: {web}{edge}, worker, beat; {len(seats)} bots")
    return seats


def _seat_bots(
    stack: Stack, record: Record, seats: list[tuple[str, int, str, int]], args: argparse.Namespace,
    stop: threading.Event,
) -> list[Bot]:  # fmt: skip
    """One bot per seat, each seeded from ``--seed``, started; returns once every one sits at its table."""
    rng = random.Random(args.seed)
    bots = [
        Bot(name, user_id, password, table_id, stack.client_port, stack.client_live_port, record, stop,
            random.Random(rng.random()), args.pace, args.idle)
        for name, user_id, password, table_id in seats
    ]  # fmt: skip
    for bot in bots:
        bot.start()
    for bot in bots:  # the clock starts when every bot is at its table (logging in hashes passwords: slow)
        bot.seated.wait(180)
    return bots


@dataclass
class Watchers:
    """The threads beside the bots: the health monitor, the timers' watchdog and the fault injector."""

    health: HealthMonitor
    watchdog: TimerWatchdog
    injector: Injector
    stop: threading.Event

    @classmethod
    def start(cls, stack: Stack, record: Record, bots: list[Bot], args: argparse.Namespace) -> Watchers:
        """Start the three, with one event to stop them."""
        stop = threading.Event()
        watchers = cls(
            health=HealthMonitor(stack.client_port, record, stop),
            watchdog=TimerWatchdog(stack, record, stop),
            injector=Injector(stack, record, bots, args.seconds, args.faults, args.seed, stop, args.kinds),
            stop=stop,
        )
        for thread in (watchers.health, watchers.watchdog, watchers.injector):
            thread.start()
        return watchers


def _play(args: argparse.Namespace, record: Record, bots: list[Bot]) -> None:
    """``--seconds`` of play (the faults come meanwhile), with a progress line every five seconds."""

    def describe() -> str:
        kinds = Counter(f.kind for f in record.faults)
        return (
            f"actions {sum(b.actions for b in bots)}, faults {len(record.faults)}/{args.faults} "
            f"({', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))}), violations {len(record.violations)}"
        )

    with progress("soak", total=int(args.seconds), unit="s", style=args.progress) as bar:
        started = time.monotonic()
        while bar.done < int(args.seconds):
            time.sleep(max(0.0, started + bar.done + 1 - time.monotonic()))
            bar.advance()
            if bar.done % 5 == 0:
                bar.stage(describe())


def _wind_down(
    stack: Stack, record: Record, bots: list[Bot], stop_bots: threading.Event, watchers: Watchers
) -> list[str]:
    """The last faults over, the bots' last requests answered, every waiting table moved on by itself, then the
    timer services stopped (the tables at rest for the checks). Returns the tables still stuck."""
    watchers.injector.join(watchers.injector.seconds + 60)
    watchers.injector.finish()
    say("faults done; letting the bots finish their requests")
    stop_bots.set()
    for bot in bots:
        bot.join(180)
        if bot.is_alive():
            record.violation(f"bot {bot.name} still waits for an answer")
    # every waiting table must move on by itself: wait one more deadline plus sweep, then check
    time.sleep(TURN_TIMEOUT_S + SWEEP_INTERVAL_S + SWEEP_GRACE_S + 1)
    watchers.stop.set()
    watchers.health.join(5)
    watchers.watchdog.join(5)
    stuck = watchers.watchdog.check_once(final=True)
    say("stopping worker and beat (tables at rest), then the checks")
    for name in ("beat", "worker"):
        stack.processes[name].stop()
    time.sleep(1)
    return stuck
