"""The exact engine against the simulator (lab.best plays the engine's own policy through the rules core), and
the committed exact table (docs/house-edge/exact.md) against the command that generates it.

The full check of every preset x house rule x spread is ``python -m lab worth-check`` (docs/exact-worth.md);
here a few cells with short runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from lab.cli import main
from lab.worth_check import check_cell, exact_table

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("preset", "hp", "spread"), [("italian", 10, 5), ("classic", 12, 1), ("spanish", 10, 2)])
def test_the_exact_figures_lie_inside_the_simulations_interval(preset: str, hp: int, spread: int) -> None:
    cell = check_cell(preset, hp, spread, hands=6_000, seed=5, processes=2)
    assert cell.ok, cell
    assert 0.005 < cell.flat_margin < 0.05 and 0.005 < cell.best_margin < 0.1


def test_the_committed_exact_table_is_what_the_command_prints(capsys: pytest.CaptureFixture[str]) -> None:
    """Every preset but hungarian here (its rows take a minute: ``python -m lab exact-table --out
    docs/house-edge/exact.md`` then ``git diff --exit-code`` checks them)."""
    committed = (ROOT / "docs/house-edge/exact.md").read_text()
    quick = exact_table(["classic", "italian", "spanish"])
    head, rows = quick.split("| preset", 1)
    assert committed.startswith(head)
    lines = committed.splitlines()
    assert all(row in lines for row in ("| preset" + rows).splitlines() if row.startswith("| "))
    assert sum(row.startswith("| hungarian |") for row in lines) == 6
    assert main(["exact-table", "--presets", "classic", "italian", "spanish"]) == 0
    assert capsys.readouterr().out == quick
