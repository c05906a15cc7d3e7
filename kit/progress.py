"""Progress and machine-readable output for long management commands.

One helper for every long command (``verify_hands``, ``rebuild_projections``, ``reconcile``, ``simulate``,
``soak``), so they all behave alike:

- progress goes to **stderr**: a rich progress bar when stderr is a terminal, otherwise one plain line every
  few seconds (``verify_hands: 1200/5000 hands (24%), 310/s, 12 s left``), so logs and CI output stay short;
- ``--json`` prints exactly one JSON document on **stdout** (the command's result) and nothing else there, so a
  script can pipe it to ``jq``; the human report is not printed;
- ``--progress {auto,bar,lines,off}`` forces a style (``auto``: bar on a terminal, lines elsewhere).

Use in a command::

    from kit.progress import add_output_arguments, progress, write_json

    def add_arguments(self, parser):
        add_output_arguments(parser)

    def handle(self, *args, **options):
        with progress("verify_hands", total=n, unit="hands", options=options) as bar:
            for item in items:
                ...
                bar.advance()
                bar.note("hand 12 fails")  # a line above the bar (stderr), never lost under it
        if options["json"]:
            write_json(self.stdout, {"checked": n, "failed": 0})
        else:
            self.stdout.write("...")

``total`` may be ``None`` (unknown: the bar counts up) and set later with ``bar.set_total(n)``. A stage of
unknown length (one long query) is ``bar.stage("reading the ledger")``.
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from argparse import ArgumentParser
from collections.abc import Iterator, Mapping
from typing import IO, Any, Literal

Style = Literal["auto", "bar", "lines", "off"]
STYLES: tuple[Style, ...] = ("auto", "bar", "lines", "off")
LINE_INTERVAL_S = 5.0


def add_output_arguments(parser: ArgumentParser) -> None:
    """``--json`` and ``--progress`` on a management command's parser."""
    parser.add_argument(
        "--json", action="store_true", help="print one JSON document (the result) on stdout and nothing else there"
    )
    parser.add_argument(
        "--progress",
        choices=STYLES,
        default="auto",
        help="progress on stderr: a bar on a terminal, plain lines elsewhere (auto, the default), or off",
    )


def write_json(stream: Any, payload: Mapping[str, Any]) -> None:
    """The command's result as one JSON document on ``stream`` (a command's ``self.stdout`` or a file)."""
    text = json.dumps(payload, sort_keys=True, default=str)
    if hasattr(stream, "style_func"):  # Django's OutputWrapper: no colouring, one newline
        stream.write(text, style_func=lambda s: s)
    else:
        stream.write(text + "\n")


class Progress:
    """Counts work done and shows it (see the module docstring). Use through ``progress()``."""

    def __init__(
        self,
        label: str,
        total: int | None,
        unit: str,
        style: Style,
        stream: IO[str],
        interval: float = LINE_INTERVAL_S,
    ) -> None:
        self.label = label
        self.total = total
        self.unit = unit
        self.done = 0
        self.style: Style = style
        self.stream = stream
        self.interval = interval
        self.started = time.monotonic()
        self._last_line = self.started
        self._bar: Any = None
        self._task: Any = None

    # --- lifecycle -----------------------------------------------------------------------------------------
    def _start(self) -> None:
        if self.style == "bar":
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TaskProgressColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
            from rich.progress import Progress as RichProgress

            console = Console(file=self.stream, force_terminal=True)
            self._bar = RichProgress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn(self.unit),
                TaskProgressColumn(),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=console,
                transient=False,
            )
            self._bar.start()
            self._task = self._bar.add_task(self.label, total=self.total)

    def _finish(self) -> None:
        if self._bar is not None:
            self._bar.stop()
        elif self.style == "lines":
            self._line(final=True)

    # --- what commands call --------------------------------------------------------------------------------
    def advance(self, step: int = 1) -> None:
        """``step`` more units done."""
        self.done += step
        if self._bar is not None:
            self._bar.advance(self._task, step)
        elif self.style == "lines" and time.monotonic() - self._last_line >= self.interval:
            self._line()

    def set_total(self, total: int | None) -> None:
        self.total = total
        if self._bar is not None:
            self._bar.update(self._task, total=total)

    def stage(self, description: str) -> None:
        """A new stage of the command (e.g. "checking chains"): shown as the bar's label or as a line."""
        if self._bar is not None:
            self._bar.update(self._task, description=f"{self.label}: {description}")
        elif self.style == "lines":
            self._write(f"{self.label}: {description}")

    def note(self, message: str) -> None:
        """A line worth keeping (a failure found on the way), above the bar; nothing when progress is off."""
        if self._bar is not None:
            self._bar.console.print(message, markup=False, highlight=False)
        elif self.style == "lines":
            self._write(f"{self.label}: {message}")

    # --- plain lines -----------------------------------------------------------------------------------------
    def summary(self) -> str:
        elapsed = max(time.monotonic() - self.started, 1e-9)
        rate = self.done / elapsed
        if self.total:
            pct = 100 * self.done / self.total
            left = (self.total - self.done) / rate if rate > 0 else 0.0
            return (
                f"{self.label}: {self.done}/{self.total} {self.unit} ({pct:.0f}%), "
                f"{rate:,.0f}/s, {elapsed:.0f} s elapsed, {left:.0f} s left"
            )
        return f"{self.label}: {self.done} {self.unit}, {rate:,.0f}/s, {elapsed:.0f} s elapsed"

    def _line(self, final: bool = False) -> None:
        self._last_line = time.monotonic()
        self._write(self.summary() + (" (done)" if final else ""))

    def _write(self, text: str) -> None:
        self.stream.write(text + "\n")
        self.stream.flush()


def resolve_style(requested: str | None, stream: IO[str]) -> Style:
    """``auto`` becomes ``bar`` on a terminal and ``lines`` elsewhere."""
    style = (requested or "auto").lower()
    if style not in STYLES:
        raise ValueError(f"progress style must be one of {', '.join(STYLES)}, not {requested!r}")
    if style == "auto":
        isatty = getattr(stream, "isatty", None)
        return "bar" if callable(isatty) and isatty() else "lines"
    return style  # type: ignore[return-value]


@contextlib.contextmanager
def progress(
    label: str,
    *,
    total: int | None = None,
    unit: str = "items",
    options: Mapping[str, Any] | None = None,
    style: str | None = None,
    stream: IO[str] | None = None,
    interval: float = LINE_INTERVAL_S,
) -> Iterator[Progress]:
    """Show the progress of ``label`` on ``stream`` (stderr) in the style ``options["progress"]`` asks for.

    ``options`` is the command's options (``--progress``); ``style`` overrides it."""
    out: IO[str] = stream if stream is not None else sys.stderr
    requested = style if style is not None else (options or {}).get("progress", "auto")
    bar = Progress(label, total, unit, resolve_style(requested, out), out, interval)
    bar._start()
    try:
        yield bar
    finally:
        bar._finish()
