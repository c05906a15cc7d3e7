"""``game.rules_sha256`` (API.md "Hand history", docs/fairness.md "Which rules dealt a hand"): the digest of the
code that decides hands (the game's maths and the rules core) is exactly what
``LC_ALL=C sha256sum gamemath/*.py rules/*.py | sha256sum`` prints, and any byte of any of its files changes it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from gamemath.release import rules_sha256
from tests.conftest import ROOT


def test_the_digest_is_the_documented_shell_pipeline() -> None:
    done = subprocess.run(
        "sha256sum gamemath/*.py rules/*.py | sha256sum",
        shell=True,
        cwd=ROOT,
        env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.split()[0] == rules_sha256()


def test_any_change_to_a_file_that_decides_hands_changes_the_digest(tmp_path: Path) -> None:
    copy = tmp_path
    for package in ("gamemath", "rules"):
        shutil.copytree(ROOT / package, copy / package, ignore=shutil.ignore_patterns("__pycache__"))
    assert rules_sha256(copy) == rules_sha256()
    scoring = copy / "gamemath" / "scoring.py"
    scoring.write_bytes(scoring.read_bytes() + b"\n")
    changed = rules_sha256(copy)
    assert changed != rules_sha256()
    (copy / "rules" / "extra.py").write_text("")
    assert rules_sha256(copy) not in (changed, rules_sha256())
