"""``python -m soak``'s command line: the options, their checks, and the run with them."""

from __future__ import annotations

import argparse

import soak
from kit.progress import add_output_arguments
from soak import run
from soak.faults import FAULT_KINDS, ONCE_PER_RUN
from soak.report import print_summary
from soak.seating import PRESETS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The soak's options (``python -m soak``)."""
    parser.add_argument("--seconds", type=float, default=600, help="how long the bots play (default 600)")
    parser.add_argument("--faults", type=int, default=120, help="faults to inject, PostgreSQL restart included")
    parser.add_argument("--seed", type=int, default=1, help="seed of the fault schedule and the bots")
    parser.add_argument("--bots-per-table", type=int, default=2, help="punters per table (player bank: +1)")
    parser.add_argument("--web-workers", type=int, default=3)
    parser.add_argument("--threads", type=int, default=4, help="threads per web worker")
    parser.add_argument("--pace", type=float, default=0.5, help="a bot waits up to this long between actions")
    parser.add_argument("--idle", type=float, default=0.03, help="chance a bot lets its deadline pass")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (logs, data)")
    parser.add_argument(
        "--database-url",
        help="a superuser's URL of a PostgreSQL server to use instead of a private cluster (a database of the "
        "soak's own is created there and dropped afterwards); never restarted unless --pgdata is given",
    )
    parser.add_argument("--pgdata", help="with --database-url: its data directory, so the soak may restart it")
    parser.add_argument(
        "--kinds",
        default="",
        help="only these fault kinds, comma-separated (a drill: --kinds pg_failover --faults 1); default all",
    )
    parser.add_argument(
        "--presets", default=",".join(PRESETS), help="the presets with a table (each in both bank modes); default all"
    )
    add_output_arguments(parser)  # --json (the summary as one JSON document on stdout), --progress


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The options of ``argv`` (the command line's by default), checked: a wrong one exits with a usage error."""
    parser = argparse.ArgumentParser(description=(soak.__doc__ or "").split("\n\n")[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    problem = check_arguments(args)
    if problem:
        parser.error(problem)
    return args


def check_arguments(args: argparse.Namespace) -> str:
    """Normalise ``--kinds`` and ``--presets`` into tuples; what is wrong with the options, or ""."""
    args.kinds = tuple(k for k in args.kinds.split(",") if k) if isinstance(args.kinds, str) else args.kinds
    args.presets = tuple(p for p in args.presets.split(",") if p) if isinstance(args.presets, str) else args.presets
    unknown = set(args.kinds) - {*FAULT_KINDS, *ONCE_PER_RUN}
    if unknown:
        return f"unknown fault kinds: {', '.join(sorted(unknown))}"
    if not args.presets or set(args.presets) - set(PRESETS):
        return f"--presets: some of {', '.join(PRESETS)}"
    if not args.kinds and args.faults < len(FAULT_KINDS) + len(ONCE_PER_RUN):
        return f"--faults must be at least {len(FAULT_KINDS) + len(ONCE_PER_RUN)} (every kind once)"
    return ""


def main(argv: list[str] | None = None) -> int:
    """``python -m soak``: one run, its summary on stdout; the exit code 0 when every invariant held."""
    args = parse_args(argv)
    return print_summary(run.soak(args), as_json=args.json)

