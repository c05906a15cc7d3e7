"""The house-edge report: the table of edges, sweeps, plots (SVG and PNG) and a short HTML page.

``python -m lab report --out docs/house-edge`` (or ``manage.py simulate_report``) runs every simulation below
on every core, writes ``results.json`` (every run's full result), ``table.md`` (the table of
docs/house-edge.md), ``edge_vs_threshold``, ``edge_vs_house_rule`` and ``frequencies`` as .svg and .png, and
``index.html`` showing them. Runs already in ``results.json`` with the same spec are reused (``--fresh``
ignores them), so an interrupted report resumes where it stopped.
"""

from __future__ import annotations

import argparse
import html
import json
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from .progress import PRESETS, add_progress_argument, run_with_progress
from .sim import ENGINE_VERSION, Spec
from .strategies import DEFAULT_BANKER, DEFAULT_PUNTER, punter_strategy

#: The size of a published figure, in rounds: docs/house-edge.md's table and the admin's figure of a table's rule
#: set are the same computation (:func:`published_spec`), so they show the same number.
HOUSE_BANK_HANDS = 60_000
PLAYER_BANK_HANDS = 15_000  # four punters a round: 60,000 punter hands
PUBLISHED_SEED = 1


def published_spec(preset: str, overrides: dict[str, Any], bank: str, *, hands: int = 0, seed: int = 0) -> Spec:
    """The simulation behind a published house edge: the default strategies (punters ``DEFAULT_PUNTER``, one at a
    house bank and four at a player bank; a player banker ``DEFAULT_BANKER``), ``HOUSE_BANK_HANDS`` or
    ``PLAYER_BANK_HANDS`` rounds, seed ``PUBLISHED_SEED``. The report's table and ``lab.services.table_spec`` (the
    admin) both call it."""
    return Spec(
        preset=preset,
        overrides=dict(overrides),
        bank=bank,
        punter=DEFAULT_PUNTER,
        banker=DEFAULT_BANKER,
        hands=hands or (HOUSE_BANK_HANDS if bank == "house" else PLAYER_BANK_HANDS),
        seed=seed or PUBLISHED_SEED,
    )


#: The house rules of the published table (banker_stands_at_hp: stand at 4, 5 and 6 points).
HOUSE_RULES = (8, 10, 12)
#: The sweeps: punters' stand threshold and the house rule, in half-points.
THRESHOLDS = tuple(range(4, 15))
SWEEP_HOUSE_RULES = tuple(range(6, 15))
FREQUENCY_KEYS = (
    ("bust", "punter busts"),
    ("seven_half", "punter 7½"),
    ("reale", "punter reale"),
    ("pair7", "punter pair of 7s"),
    ("tie", "tie"),
    ("banker_bust", "banker busts"),
    ("rounds_with_split", "round with a split"),
    ("bank_transfers", "bank passes"),
)


def add_report_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", default="docs/house-edge", help="output directory (default docs/house-edge)")
    parser.add_argument("--hands", type=int, default=HOUSE_BANK_HANDS, help="rounds per house-bank cell of the table")
    parser.add_argument(
        "--player-hands", type=int, default=PLAYER_BANK_HANDS, help="rounds per player-bank cell (4 punters a round)"
    )
    parser.add_argument("--sweep-hands", type=int, default=10_000, help="rounds per point of the sweeps")
    parser.add_argument("--seed", type=int, default=PUBLISHED_SEED)
    parser.add_argument("--processes", type=int, default=0, help="worker processes (default: every core)")
    parser.add_argument("--fresh", action="store_true", help="ignore results already in results.json")
    add_progress_argument(parser)


def _key(spec: Spec) -> str:
    return json.dumps({**spec.to_json(), "engine": ENGINE_VERSION}, sort_keys=True)


class Runner:
    """Runs specs once each, keeping every result in ``results.json`` as it goes."""

    def __init__(self, out: Path, processes: int | None, style: str, fresh: bool) -> None:
        self.path = out / "results.json"
        self.processes = processes
        self.style = style
        self.results: dict[str, dict[str, Any]] = {}
        if self.path.exists() and not fresh:
            self.results = {_key_of(r): r for r in json.loads(self.path.read_text())["runs"]}

    def get(self, spec: Spec, label: str) -> dict[str, Any]:
        key = _key(spec)
        if key not in self.results:
            result = run_with_progress(spec, self.processes, style=self.style, label=label)
            self.results[key] = result.to_json()
            self.save()
        return self.results[key]

    def save(self) -> None:
        runs = sorted(self.results.values(), key=lambda r: json.dumps(r["spec"], sort_keys=True))
        self.path.write_text(json.dumps({"engine_version": ENGINE_VERSION, "runs": runs}, separators=(",", ":")) + "\n")


def _key_of(result: dict[str, Any]) -> str:
    return json.dumps({**result["spec"], "engine": result.get("engine_version", ENGINE_VERSION)}, sort_keys=True)


def _pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def _points(hp: int) -> str:
    whole, half = divmod(hp, 2)
    return f"{whole}½" if half else str(whole)


def report(args: argparse.Namespace) -> Path:
    """Run everything and write the files; returns the output directory."""
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    runner = Runner(out, args.processes or None, args.progress, args.fresh)
    base = Spec(seed=args.seed, punter=DEFAULT_PUNTER, banker=DEFAULT_BANKER)
    # the table: every preset, house rules 4-6 with a house bank, and a player bank
    table: dict[str, dict[str, dict[str, Any]]] = {}
    for preset in PRESETS:
        row: dict[str, dict[str, Any]] = {}
        for hp in HOUSE_RULES:
            spec = published_spec(preset, {"banker_stands_at_hp": hp}, "house", hands=args.hands, seed=args.seed)
            row[f"house {hp}"] = runner.get(spec, f"{preset} house {_points(hp)}")
        spec = published_spec(preset, {}, "player", hands=args.player_hands, seed=args.seed)
        row["player"] = runner.get(spec, f"{preset} player bank")
        table[preset] = row
    thresholds: dict[str, list[dict[str, Any]]] = {}
    house_rules: dict[str, list[dict[str, Any]]] = {}
    for preset in PRESETS:
        thresholds[preset] = [
            runner.get(
                replace(base, preset=preset, punter=f"stand:{t}", hands=args.sweep_hands),
                f"{preset} punters stand at {_points(t)}",
            )
            for t in THRESHOLDS
        ]
        house_rules[preset] = [
            runner.get(
                replace(base, preset=preset, overrides={"banker_stands_at_hp": hp}, hands=args.sweep_hands),
                f"{preset} house rule {_points(hp)}",
            )
            for hp in SWEEP_HOUSE_RULES
        ]
    (out / "table.md").write_text(markdown_table(table))
    plot_sweep(
        out / "edge_vs_threshold",
        thresholds,
        THRESHOLDS,
        "punters stand at (points)",
        "House bank, house rule: stand at 5; bank's edge by the punters' threshold",
    )
    plot_sweep(
        out / "edge_vs_house_rule",
        house_rules,
        SWEEP_HOUSE_RULES,
        "house banker stands at (points)",
        f"House bank, punters '{DEFAULT_PUNTER}'; bank's edge by the house rule",
    )
    plot_frequencies(out / "frequencies", table)
    write_html(out / "index.html", table)
    runner.save()
    return out


def markdown_table(table: dict[str, dict[str, dict[str, Any]]]) -> str:
    """The edge table: one row per preset, one column per bank mode / house rule."""
    columns = [f"house {hp}" for hp in HOUSE_RULES] + ["player"]
    titles = [f"house bank, stands at {_points(hp)}" for hp in HOUSE_RULES] + ["player bank"]
    lines = ["| preset | " + " | ".join(titles) + " |", "| --- |" + " --- |" * len(columns)]
    for preset, row in table.items():
        cells = [f"{_pct(row[c]['edge'])} ± {_pct(row[c]['half_width'])}" for c in columns]
        lines.append(f"| {preset} | " + " | ".join(cells) + " |")
    sample = next(iter(table.values()))
    lines.append("")
    lines.append(
        f"Bank's edge per unit staked, 95% interval. House bank: {sample['house 10']['spec']['punters']} punter, "
        f"{sample['house 10']['rounds']:,} hands a cell; player bank: {sample['player']['spec']['punters']} punters, "
        f"{sample['player']['rounds']:,} hands a cell. Punters: {sample['house 10']['punter_strategy']} "
        f"('{DEFAULT_PUNTER}'); player banker: {sample['player']['banker_strategy']} ('{DEFAULT_BANKER}')."
    )
    return "\n".join(lines) + "\n"


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "seven-and-a-half", "font.size": 9})
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, stem: Path) -> None:
    fig.savefig(stem.with_suffix(".svg"), metadata={"Date": None})
    fig.savefig(stem.with_suffix(".png"), dpi=110)


def plot_sweep(stem: Path, series: dict[str, list[dict[str, Any]]], xs: Iterable[int], xlabel: str, title: str) -> None:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
    xs = list(xs)
    points = [x / 2 for x in xs]
    for preset, runs in series.items():
        edges = [100 * r["edge"] for r in runs]
        errors = [100 * r["half_width"] for r in runs]
        ax.errorbar(points, edges, yerr=errors, marker="o", markersize=3, capsize=2, label=preset)
    ax.set_xticks(points, [_points(x) for x in xs])
    ax.axhline(0, color="grey", linewidth=0.6)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("bank's edge, % of stakes (95% interval)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    _save(fig, stem)
    plt.close(fig)


def plot_frequencies(stem: Path, table: dict[str, dict[str, dict[str, Any]]]) -> None:
    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True, layout="constrained")
    width = 0.8 / len(table)
    for ax, column, title in ((axes[0], "house 10", "house bank (stands at 5)"), (axes[1], "player", "player bank")):
        for i, (preset, row) in enumerate(table.items()):
            freq = row[column]["frequencies"]
            values = [100 * freq[k] for k, _ in FREQUENCY_KEYS]
            ax.bar([j + i * width for j in range(len(FREQUENCY_KEYS))], values, width, label=preset)
        ax.set_xticks(
            [j + width * (len(table) - 1) / 2 for j in range(len(FREQUENCY_KEYS))],
            [label for _, label in FREQUENCY_KEYS],
            rotation=35,
            ha="right",
        )
        ax.set_title(title)
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("% of punter hands (punter, tie) or of rounds")
    axes[1].legend()
    _save(fig, stem)
    plt.close(fig)


def write_html(path: Path, table: dict[str, dict[str, dict[str, Any]]]) -> None:
    columns = [f"house {hp}" for hp in HOUSE_RULES] + ["player"]
    titles = [f"house bank, stands at {_points(hp)}" for hp in HOUSE_RULES] + ["player bank"]
    head = "".join(f"<th>{html.escape(t)}</th>" for t in titles)
    rows = []
    for preset, row in table.items():
        cells = "".join(
            f"<td>{_pct(row[c]['edge'])} <small>± {_pct(row[c]['half_width'])}</small></td>" for c in columns
        )
        rows.append(f"<tr><th>{html.escape(preset)}</th>{cells}</tr>")
    punter = punter_strategy(DEFAULT_PUNTER).describe()
    sample = table[next(iter(table))]
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Seven and a Half: house edge by rule set</title>
<style>body{{font-family:sans-serif;max-width:60rem;margin:2rem auto}}td,th{{padding:.2rem .6rem;text-align:right}}
table{{border-collapse:collapse}}tr:nth-child(even){{background:#f4f4f4}}img{{max-width:100%}}</style></head>
<body><h1>Seven and a Half: the bank's edge by rule set</h1>
<p>Bank's net per unit staked, with its 95% confidence interval, simulated through the rules core.
Punters: {html.escape(punter)}. Player banker: {html.escape(sample["player"]["banker_strategy"])}.</p>
<table><tr><th>preset</th>{head}</tr>{"".join(rows)}</table>
<h2>Edge against the punters' threshold</h2><img src="edge_vs_threshold.svg" alt="edge against threshold">
<h2>Edge against the house rule</h2><img src="edge_vs_house_rule.svg" alt="edge against house rule">
<h2>Outcome frequencies</h2><img src="frequencies.svg" alt="outcome frequencies">
<p>Every run: <a href="results.json">results.json</a>. Regenerate: <code>python -m lab report</code>.</p>
</body></html>
"""
    path.write_text(page)
