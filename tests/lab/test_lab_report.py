"""The report command writes the table, the three plots (SVG and PNG) and an HTML page showing them, and a second
run reuses every result it already has."""

from __future__ import annotations

import json
import time

from lab.cli import main

PRESETS = ("classic", "italian", "spanish", "hungarian")


def test_the_report_writes_table_plots_and_page_and_resumes(tmp_path):
    args = ["report", "--out", str(tmp_path), "--hands", "60", "--player-hands", "20", "--sweep-hands", "20",
            "--processes", "1", "--progress", "off"]
    assert main(args) == 0
    for stem in ("edge_vs_threshold", "edge_vs_house_rule", "frequencies"):
        svg = (tmp_path / f"{stem}.svg").read_text()
        assert svg.startswith("<?xml") and "<svg" in svg and "classic" in svg and "hungarian" in svg
        assert (tmp_path / f"{stem}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = (tmp_path / "index.html").read_text()
    assert all(f'src="{stem}.svg"' in page for stem in ("edge_vs_threshold", "edge_vs_house_rule", "frequencies"))
    table = (tmp_path / "table.md").read_text()
    rows = [line for line in table.splitlines() if line.startswith("| ") and line.split("|")[1].strip() in PRESETS]
    assert len(rows) == 4 and all(line.count("±") == 4 for line in rows)
    runs = json.loads((tmp_path / "results.json").read_text())["runs"]
    assert len(runs) == 4 * (3 + 1) + 4 * (11 + 9)  # the table, then both sweeps for every preset
    before = (tmp_path / "results.json").read_text()
    started = time.monotonic()
    assert main(args) == 0  # nothing left to simulate: only the files are written again
    assert (tmp_path / "results.json").read_text() == before
    assert time.monotonic() - started < 30
