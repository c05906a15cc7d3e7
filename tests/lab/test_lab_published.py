"""One house-edge figure (issue 32): the admin's figure of a table and docs/house-edge.md's table are the same
computation (lab.report.published_spec: same punters, strategies, rounds and seed), both say which, and the
published table is what results.json holds for those runs."""

from __future__ import annotations

import json
import re
from dataclasses import asdict

import pytest

from lab.models import DONE, HouseEdge
from lab.report import HOUSE_RULES, PRESETS, published_spec
from lab.runner import run
from lab.services import compute, request_house_edge, table_spec
from rules import make_table_config
from tests.conftest import ROOT

DOCS = (ROOT / "docs" / "house-edge.md").read_text()
RESULTS = json.loads((ROOT / "docs" / "house-edge" / "results.json").read_text())
CELLS = [(p, "house", hp) for p in PRESETS for hp in HOUSE_RULES] + [(p, "player", None) for p in PRESETS]


def _config(preset: str, bank: str, hp: int | None):
    overrides = {"banker_stands_at_hp": hp} if hp is not None else {}
    fixed = 10 if preset == "hungarian" else None
    return make_table_config(
        preset=preset, overrides=overrides, min_bet=10, max_bet=10 if fixed else 50, max_seats=6, bank=bank,
        fixed_stake=fixed,
    )  # fmt: skip


def _pct(x: float) -> str:
    return f"{100 * x:.2f}%"


@pytest.mark.parametrize(("preset", "bank", "hp"), CELLS)
def test_a_table_with_a_published_rule_set_runs_the_published_computation(preset, bank, hp, settings):
    settings.HOUSE_EDGE_HANDS = 0  # production's default: the published size
    admin = table_spec(_config(preset, bank, hp))
    published = published_spec(preset, {"banker_stands_at_hp": hp} if hp else {}, bank)
    assert admin.validate() == published.validate()  # the same resolved rules
    same = ("bank", "punters", "punter", "banker", "hands", "seed", "chunk")
    assert {k: asdict(admin)[k] for k in same} == {k: asdict(published)[k] for k in same}
    assert admin.seats == (1 if bank == "house" else 4)


@pytest.mark.parametrize(("preset", "bank", "hp"), CELLS)
def test_the_published_table_is_what_results_json_holds_for_those_runs(preset, bank, hp):
    spec = published_spec(preset, {"banker_stands_at_hp": hp} if hp else {}, bank)
    runs = {json.dumps(r["spec"], sort_keys=True): r for r in RESULTS["runs"]}
    result = runs[json.dumps(spec.to_json(), sort_keys=True)]
    cell = f"{_pct(result['edge'])} ± {_pct(result['half_width'])}"
    row = next(line for line in DOCS.splitlines() if line.startswith(f"| {preset} |"))
    assert cell in row, (preset, bank, hp, cell, row)


def test_the_docs_say_which_punters_and_strategies_and_rounds():
    for words in ("stand at 5 or more", "one punter", "four punters", "60,000", "15,000", "seed 1", "watcher"):
        assert words in DOCS, words
    assert "same computation" in DOCS


@pytest.mark.django_db
def test_the_admin_stores_exactly_what_the_published_computation_gives_and_says_which(settings):
    settings.HOUSE_EDGE_HANDS = 300  # small, the same code path
    settings.HOUSE_EDGE_TASKS = False
    config = _config("classic", "player", None)
    row = request_house_edge(config)
    compute(row.key)
    row = HouseEdge.objects.get(pk=row.pk)
    expected = run(published_spec("classic", {}, "player", hands=300), processes=1)
    assert row.status == DONE and row.edge == expected.edge and row.half_width == expected.half_width
    from lab.admin import describe

    text = re.sub(r"<[^>]+>", " ", str(describe(row)))
    assert (
        "4 punter(s)" in text and "stand at 5 or more" in text and "seed 1" in text and "300 simulated rounds" in text
    )
