"""The battery's one report file, twice: JSON for machines and Markdown for the reviewer, from one record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from certify.battery import Report


def as_data(report: Report) -> dict[str, Any]:
    """The report as plain data (the JSON file)."""
    return {
        "kind": "rng_battery",
        "sizes": report.sizes.name,
        "decks": report.sizes.decks,
        "nist_bits": report.sizes.nist_bits,
        "started": report.started,
        "seconds": round(report.seconds, 1),
        "rule": report.rule,
        "alpha": report.alpha,
        "threshold": report.threshold,
        "verdict": "PASS" if report.passed else "FAIL",
        "pvalues": [
            {"test": p.name, "p": p.p, "detail": p.detail, "fails": p.p < report.threshold} for p in report.pvalues
        ],
        "notes": report.notes,
    }


def as_markdown(report: Report) -> str:
    """The report for people: the rule first, then every p-value, then the verdict."""
    data = as_data(report)
    lines = [
        f"# RNG battery ({data['sizes']} run), {data['started']}",
        "",
        f"**Verdict rule (stated before the run):** {data['rule']}",
        "",
        f"k = {len(report.pvalues)} p-values; threshold {data['threshold']:.3g}.",
        "",
        "| test | p-value | detail | below threshold |",
        "| --- | --- | --- | --- |",
    ]
    for p in data["pvalues"]:
        lines.append(f"| {p['test']} | {p['p']:.6g} | {p['detail']} | {'FAIL' if p['fails'] else ''} |")
    lines += ["", *[f"- {note}" for note in data["notes"]], ""]
    lines.append(f"**Verdict: {data['verdict']}** ({data['seconds']} s)\n")
    return "\n".join(lines)


def write(report: Report, path: Path) -> tuple[Path, Path]:
    """``path`` with ``.json`` and ``.md``: the same report; returns both paths."""
    json_path, md_path = path.with_suffix(".json"), path.with_suffix(".md")
    json_path.write_text(json.dumps(as_data(report), indent=2) + "\n")
    md_path.write_text(as_markdown(report))
    return json_path, md_path
