"""Command line of the house-edge lab: ``python -m lab simulate|report|strategies`` (no database needed).

``manage.py simulate`` and ``manage.py simulate_report`` take the same arguments (they call these functions).
Progress goes to stderr: a rich progress bar on a terminal (hands/s and the interval narrowing), plain lines
otherwise; ``--json`` prints the result as JSON on stdout, else a table.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from rules import DomainError

from .progress import PRESETS, add_progress_argument, pct, run_with_progress
from .report import add_report_arguments, report
from .runner import Result
from .sim import CHUNK, Spec
from .stats import PUNTER_KEYS, ROUND_KEYS
from .strategies import BANKER_STRATEGIES, DEFAULT_BANKER, DEFAULT_PUNTER, PUNTER_STRATEGIES
from .worth_check import add_exact_table_arguments, add_worth_check_arguments, exact_table_command, worth_check


def parse_override(text: str) -> tuple[str, Any]:
    """``toggle=value``; the value is read as JSON when it parses (true, 2, "x"), else as a string."""
    name, sep, raw = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected toggle=value, got {text!r}")
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    return name.strip(), value


def add_simulate_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``simulate`` (shared with ``manage.py simulate``)."""
    parser.add_argument("--preset", choices=PRESETS, default="classic")
    parser.add_argument("--bank", choices=("house", "player"), default="house")
    parser.add_argument(
        "--set",
        dest="overrides",
        type=parse_override,
        action="append",
        default=[],
        metavar="TOGGLE=VALUE",
        help="override a toggle of the preset (repeatable), e.g. --set banker_stands_at_hp=12 --set tie_rule=push",
    )
    parser.add_argument("--hands", type=int, default=100_000, help="rounds to play (default 100000)")
    parser.add_argument("--punters", type=int, default=0, help="punters at the table (default: 1 house, 4 player)")
    parser.add_argument(
        "--punter",
        default=DEFAULT_PUNTER,
        help=f"punter strategy: {', '.join(PUNTER_STRATEGIES)} or stand:H[,H2,...][:nosplit] in half-points per "
        f"card count, or best (the exact engine's best play, alone at a house bank) (default {DEFAULT_PUNTER})",
    )
    parser.add_argument("--max-bet", type=int, default=1, help="the table's maximum; its minimum is 1 (default 1)")
    parser.add_argument(
        "--banker",
        default=DEFAULT_BANKER,
        help=f"player-banker strategy: {', '.join(BANKER_STRATEGIES)}, stand:H or visible:H (default "
        f"{DEFAULT_BANKER}); a house bank plays banker_stands_at_hp",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--processes", type=int, default=0, help="worker processes (default: every core)")
    parser.add_argument("--chunk", type=int, default=CHUNK, help=f"rounds per seeded chunk (default {CHUNK})")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    add_progress_argument(parser)


def spec_from_args(args: argparse.Namespace) -> Spec:
    return Spec(
        preset=args.preset,
        overrides=dict(args.overrides),
        bank=args.bank,
        punters=args.punters,
        punter=args.punter,
        banker=args.banker,
        hands=args.hands,
        seed=args.seed,
        chunk=args.chunk,
        max_bet=args.max_bet,
    )


# -- output -------------------------------------------------------------------------------------------------

_LABELS = {
    "bust": "punter hand busts",
    "points": "punter hand stands on points",
    "seven_half": "punter hand makes 7½",
    "reale": "punter hand makes a reale",
    "pair7": "punter hand makes a pair of sevens",
    "win": "punter hand wins",
    "lose": "punter hand loses",
    "push": "punter hand pushes",
    "tie": "tie with the banker",
    "banker_bust": "banker busts",
    "banker_points": "banker stands on points",
    "banker_seven_half": "banker makes 7½",
    "banker_reale": "banker makes a reale",
    "banker_pair7": "banker makes a pair of sevens",
    "banker_skipped": "banker does not play (all settled)",
    "splits": "splits",
    "rounds_with_split": "rounds with a split",
    "bank_transfers": "bank passes to a winner",
    "bank_rotations": "bank rotates",
}


def print_table(result: Result, stream: TextIO | None = None) -> None:
    """The result as two rich tables: the edge, then every frequency."""
    from rich.console import Console
    from rich.table import Table

    data = result.to_json()
    console = Console(file=stream or sys.stdout)
    spec = result.spec
    summary = Table(title=f"House-edge lab: {spec.preset}, {spec.bank} bank", show_header=False)
    summary.add_column(style="bold")
    summary.add_column()
    overrides = ", ".join(f"{k}={v}" for k, v in sorted(spec.overrides.items())) or "none"
    lo, hi = data["ci95"]
    rows = [
        ("overrides", overrides),
        ("punters", f"{spec.seats}, {data['punter_strategy']} ({spec.punter})"),
        ("banker", data["banker_strategy"]),
        ("hands (rounds)", f"{data['rounds']:,} ({data['punter_hands']:,} punter hands), seed {spec.seed}"),
        ("bank's edge", f"{pct(data['edge'])} of every unit staked"),
        ("95% interval", f"{pct(lo)} to {pct(hi)} (± {pct(data['half_width'])})"),
        ("speed", f"{data['hands_per_second']:,} hands/s on {data['processes']} process(es), {data['seconds']} s"),
    ]
    for key, value in rows:
        summary.add_row(key, value)
    console.print(summary)
    freq = Table(title="Frequencies")
    freq.add_column("outcome")
    freq.add_column("per", justify="left")
    freq.add_column("frequency", justify="right")
    for key in (*PUNTER_KEYS, *ROUND_KEYS):
        value = data["frequencies"][key]
        per = "punter hand" if key in PUNTER_KEYS else "round"
        freq.add_row(_LABELS[key], per, f"{100 * value:.2f}%")
    console.print(freq)


def simulate(args: argparse.Namespace, out: TextIO | None = None) -> Result:
    """``simulate``: one run, printed as a table or JSON."""
    out = out or sys.stdout
    spec = spec_from_args(args)
    result = run_with_progress(spec, args.processes or None, style=args.progress)
    if args.json:
        out.write(json.dumps(result.to_json(), indent=2) + "\n")
    else:
        print_table(result, out)
    return result


def list_strategies(out: TextIO | None = None) -> None:
    out = out or sys.stdout
    print("punter strategies (--punter):", file=out)
    for name, s in PUNTER_STRATEGIES.items():
        print(f"  {name:10s} {s.describe()}{'  [default]' if name == DEFAULT_PUNTER else ''}", file=out)
    print("  stand:H[,H2,...][:nosplit]  stand at H half-points (per card count), splitting when allowed", file=out)
    print("player-banker strategies (--banker):", file=out)
    for name, b in BANKER_STRATEGIES.items():
        print(f"  {name:10s} {b.describe()}{'  [default]' if name == DEFAULT_BANKER else ''}", file=out)
    print("  stand:H, visible:H", file=out)


def main(argv: Sequence[str] | None = None) -> int:

    parser = argparse.ArgumentParser(prog="python -m lab", description="House-edge lab of Seven and a Half")
    sub = parser.add_subparsers(dest="command", required=True)
    add_simulate_arguments(sub.add_parser("simulate", help="simulate one rule set"))
    add_report_arguments(sub.add_parser("report", help="sweeps, plots, the edge table and an HTML page"))
    sub.add_parser("strategies", help="list the named strategies")
    add_worth_check_arguments(sub.add_parser("worth-check", help="the exact engine's figures against the simulator"))
    add_exact_table_arguments(sub.add_parser("exact-table", help="the exact table of docs/house-edge/exact.md"))
    args = parser.parse_args(argv)
    commands: dict[str, Callable[[argparse.Namespace], object]] = {
        "simulate": simulate,
        "report": report,
        "strategies": lambda _args: list_strategies(),
        "worth-check": worth_check,
        "exact-table": exact_table_command,
    }
    try:
        status = commands[args.command](args)
    except DomainError as error:
        parser.exit(2, f"error: {error.code}: {error.message} ({error.details})\n")
    except (ValueError, LookupError) as error:
        parser.exit(2, f"error: {error}\n")
    return status if isinstance(status, int) else 0
