"""Running a simulation with progress on stderr (a rich bar on a terminal, plain lines elsewhere), for the lab's
command line and its report (``python -m lab simulate``, ``python -m lab report``)."""

from __future__ import annotations

import argparse
import math
import sys
import time
from typing import TextIO

from .runner import Progress, Result, run
from .sim import Spec

PRESETS = ("classic", "italian", "spanish", "hungarian")


def add_progress_argument(parser: argparse.ArgumentParser) -> None:
    """``--progress`` as every long command of the project has it (kit/progress.py)."""
    parser.add_argument(
        "--progress",
        choices=("auto", "bar", "lines", "off"),
        default="auto",
        help="progress on stderr: a bar on a terminal, plain lines elsewhere (auto, the default), or off",
    )


def pct(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{100 * x:.2f}%"


def _ci_text(p: Progress) -> str:
    t = p.tally
    return f"edge {pct(t.edge)} ± {pct(t.half_width)}"


class PlainProgress:
    """One line per update, at most every ``interval`` seconds (and the last one), for logs and pipes."""

    def __init__(self, label: str, stream: TextIO, interval: float = 5.0) -> None:
        self.label = label
        self.stream = stream
        self.interval = interval
        self.last = -math.inf

    def __call__(self, p: Progress) -> None:
        now = time.monotonic()
        if now - self.last < self.interval and p.done < p.total:
            return
        self.last = now
        rate = p.done / p.seconds if p.seconds else 0.0
        print(
            f"{self.label}: {p.done:,}/{p.total:,} hands, {rate:,.0f} hands/s, {_ci_text(p)}",
            file=self.stream,
            flush=True,
        )


class RichProgress:
    """A rich progress bar: hands done, hands/s, elapsed and remaining time, the edge and its interval."""

    def __init__(self, label: str, total: int, stream: TextIO) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]} hands/s"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            TextColumn("{task.fields[ci]}"),
            console=Console(file=stream),
            transient=False,
        )
        self.task = self.progress.add_task(label, total=total, rate="-", ci="")

    def __enter__(self) -> RichProgress:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def __call__(self, p: Progress) -> None:
        rate = f"{p.done / p.seconds:,.0f}" if p.seconds else "-"
        self.progress.update(self.task, completed=p.done, rate=rate, ci=_ci_text(p))


def run_with_progress(
    spec: Spec, processes: int | None, *, style: str = "auto", label: str = "simulate", stream: TextIO | None = None
) -> Result:
    """Run ``spec`` showing progress on ``stream`` (stderr): ``bar`` (rich), ``lines`` (plain, every 5 s),
    ``off``; ``auto`` is a bar on a terminal and lines elsewhere."""
    stream = stream or sys.stderr
    if style == "auto":
        style = "bar" if stream.isatty() else "lines"
    if style == "off":
        return run(spec, processes)
    if style == "bar":
        with RichProgress(label, spec.hands, stream) as bar:
            return run(spec, processes, bar)
    return run(spec, processes, PlainProgress(label, stream))
