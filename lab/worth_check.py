"""The exact engine's figures against the simulator, and the exact table for the docs (issue #41).

- ``python -m lab worth-check``: for every house-banked preset x house rule (``banker_stands_at_hp`` 8, 10, 12)
  x spread (1, 2, 5, 10), the exact ``best_play`` and ``flat`` (:mod:`gamemath.worth`) beside the simulator's
  figures for the same play through the rules core (``--punter best``: the engine's own policy, and the lab's
  ``standard``), each with its 95% interval; a cell fails when an exact figure lies outside its interval.
- ``python -m lab exact-table --out docs/house-edge/exact.md``: both exact figures per preset x house rule x
  spread (1, 2, 3, 5, 10) and the break-even spread of every preset whose punter can use a spread.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import TextIO

from gamemath.ruleset import PRESETS, Rules
from gamemath.worth import break_even_spread, house_worth

from .runner import run
from .sim import BEST_PUNTER, Spec

HOUSE_RULES: tuple[int, ...] = (8, 10, 12)
CHECK_SPREADS: tuple[int, ...] = (1, 2, 5, 10)
TABLE_SPREADS: tuple[int, ...] = (1, 2, 3, 5, 10)
ALL_PRESETS: tuple[str, ...] = ("classic", "italian", "spanish", "hungarian")
Z95 = 1.959963984540054


def table_rules(preset: str, stands_at_hp: int) -> Rules:
    return replace(PRESETS[preset], banker_stands_at_hp=stands_at_hp)


def _fixed(rules: Rules) -> int | None:
    return 1 if rules.stake_mode == "bank_fixed" else None


@dataclass(frozen=True)
class Cell:
    """One cell of the check: exact figures and the simulated ones (return per chip, 95% half-width)."""

    preset: str
    stands_at_hp: int
    spread: int
    best_exact: Fraction
    flat_exact: Fraction
    best_sim: float
    best_margin: float
    flat_sim: float
    flat_margin: float

    @property
    def z(self) -> tuple[float, float]:
        """How many standard errors the simulation lies from each exact figure (best, flat)."""
        return (
            (self.best_sim - float(self.best_exact)) / (self.best_margin / Z95),
            (self.flat_sim - float(self.flat_exact)) / (self.flat_margin / Z95),
        )

    @property
    def in95(self) -> bool:
        """Both exact figures inside the simulation's 95% intervals (about 1 figure in 20 is not, by chance)."""
        return all(abs(z) <= Z95 for z in self.z)

    @property
    def ok(self) -> bool:
        """Both within 4 standard errors: a correct engine fails this once in 15,000 figures."""
        return all(abs(z) <= 4 for z in self.z)


def check_cell(
    preset: str, stands_at_hp: int, spread: int, *, hands: int, seed: int = 1, processes: int | None = None
) -> Cell:
    rules = table_rules(preset, stands_at_hp)
    worth = house_worth(rules, min_bet=1, max_bet=spread, fixed_stake=_fixed(rules))
    overrides = {"banker_stands_at_hp": stands_at_hp}
    chunk = min(10_000, hands)
    best = run(
        Spec(
            preset=preset, overrides=overrides, punter=BEST_PUNTER, max_bet=spread, hands=hands, seed=seed, chunk=chunk
        ),
        processes,
    )
    flat = run(Spec(preset=preset, overrides=overrides, hands=hands, seed=seed, chunk=chunk), processes)
    return Cell(
        preset,
        stands_at_hp,
        spread,
        worth.best_play,
        worth.flat,
        1 - best.edge,
        best.half_width,
        1 - flat.edge,
        flat.half_width,
    )


def check_cells(
    presets: Sequence[str], house_rules: Sequence[int], spreads: Sequence[int], **kwargs: int | None
) -> Iterator[Cell]:
    for preset in presets:
        for hp in house_rules:
            for spread in spreads:
                yield check_cell(preset, hp, spread, **kwargs)  # type: ignore[arg-type]


def _pct(x: Fraction | float) -> str:
    return f"{100 * float(x):.3f}%"


def worth_check(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    failed = 0
    print(
        "preset     house  spread  best exact  best simulated (95%)   flat exact  flat simulated (95%)   in 95%  z",
        file=out,
    )
    for cell in check_cells(
        args.presets, args.house_rules, args.spreads, hands=args.hands, seed=args.seed, processes=args.processes or None
    ):
        failed += not cell.ok
        print(
            f"{cell.preset:10s} {cell.stands_at_hp:5d}  1:{cell.spread:<4d}  {_pct(cell.best_exact):>10s}  "
            f"{_pct(cell.best_sim):>9s} +- {_pct(cell.best_margin):7s}  {_pct(cell.flat_exact):>10s}  "
            f"{_pct(cell.flat_sim):>9s} +- {_pct(cell.flat_margin):7s}  {'yes' if cell.in95 else 'no':6s}  "
            f"{cell.z[0]:+.2f} {cell.z[1]:+.2f}{'' if cell.ok else '  FAILED (beyond 4 standard errors)'}",
            file=out,
            flush=True,
        )
    return 1 if failed else 0


def add_worth_check_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--presets", nargs="+", choices=ALL_PRESETS, default=list(ALL_PRESETS))
    parser.add_argument("--house-rules", nargs="+", type=int, default=list(HOUSE_RULES), metavar="HP")
    parser.add_argument("--spreads", nargs="+", type=int, default=list(CHECK_SPREADS))
    parser.add_argument("--hands", type=int, default=400_000, help="rounds per simulated figure (default 400000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--processes", type=int, default=0, help="worker processes (default: every core)")


# -- the exact table for the docs ------------------------------------------------------------------------------


def exact_table(presets: Sequence[str]) -> str:
    """The docs' exact table (markdown), deterministic: the same text on every run."""
    lines = [
        "# What a house-banked table is worth, exactly",
        "",
        "Generated by `python -m lab exact-table --out docs/house-edge/exact.md` from the exact engine",
        "(`gamemath.worth`, method in docs/exact-worth.md); do not edit by hand. Returns per chip staked, one punter",
        "against the house's fixed rule: **best** = the play that maximises his expected winnings within the limits",
        "(stake after the peek, raises, splits, hits and stands), **flat** = the minimum stake and the published",
        "default strategy (stand at 5 or more, always split, never raise). A spread 1:N is max_bet / min_bet.",
        "Split rounds (spanish, hungarian) use the engine's fast model, an approximation inside split rounds only",
        '(docs/exact-worth.md, "Split rounds", with its measured difference from the exact values).',
        "",
        "| preset | house stands at | " + " | ".join(f"best 1:{s}" for s in TABLE_SPREADS) + " | flat |",
        "| --- | --- | " + " | ".join("---" for _ in TABLE_SPREADS) + " | --- |",
    ]
    for preset in presets:
        for hp in HOUSE_RULES:
            rules = table_rules(preset, hp)
            worths = [house_worth(rules, min_bet=1, max_bet=s, fixed_stake=_fixed(rules)) for s in TABLE_SPREADS]
            cells = " | ".join(_pct(w.best_play) for w in worths)
            lines.append(f"| {preset} | {hp / 2:g} | {cells} | {_pct(worths[0].flat)} |")
    lines += ["", "Break-even spread (best play returns exactly 100%; a larger spread lets a careful punter win):", ""]
    lines += ["| preset | house stands at | break-even spread |", "| --- | --- | --- |"]
    for preset in presets:
        for hp in HOUSE_RULES:
            be = break_even_spread(table_rules(preset, hp))
            text = "never" if be is None else f"1:{float(be):.4f}"
            lines.append(f"| {preset} | {hp / 2:g} | {text} |")
    return "\n".join(lines) + "\n"


def add_exact_table_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--presets", nargs="+", choices=ALL_PRESETS, default=list(ALL_PRESETS))
    parser.add_argument("--out", help="write the table to this file (default: stdout)")


def exact_table_command(args: argparse.Namespace, out: TextIO | None = None) -> int:
    text = exact_table(args.presets)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        (out or sys.stdout).write(text)
    return 0
