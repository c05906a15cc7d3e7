"""The game's maths (gamemath/) is standard library only, reads no clock and draws no randomness: the outside
verifier (tools/verify_hand.py) imports it with nothing installed (tests/tools/test_fairness_live.py runs it
with ``python -I -S``), and the rules core builds on it."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import gamemath
from tests.support.imports_scan import imported

PACKAGE = Path(gamemath.__file__).parent


def _modules() -> list[Path]:
    return sorted(PACKAGE.glob("*.py"))


def test_the_scan_sees_every_module() -> None:
    assert {p.name for p in _modules()} >= {"cards.py", "shuffle.py", "scoring.py", "ruleset.py", "chainhash.py"}


def test_every_module_imports_only_the_standard_library_and_its_own_package() -> None:
    for path in _modules():
        for name in imported(ast.parse(path.read_text(), str(path))):
            root = name.split(".")[0]
            assert root == "gamemath" or root == "__future__" or root in sys.stdlib_module_names, (
                f"{path.name} imports {name}"
            )
            assert root not in ("random", "secrets", "time", "datetime"), f"{path.name} imports {name}"


def test_the_verifier_imports_nothing_of_the_project_but_the_game_maths() -> None:
    tools = Path(gamemath.__file__).parent.parent / "tools"
    files = [tools / "verify_hand.py", *sorted((tools / "verifier").glob("*.py"))]
    assert {p.name for p in files} >= {"verify_hand.py", "export.py", "chain.py"}  # the scan sees the checks
    for path in files:
        own = {name.split(".")[0] for name in imported(ast.parse(path.read_text()))} - set(sys.stdlib_module_names)
        assert own <= {"gamemath", "ed25519", "verifier", "__future__"}, (path.name, own)
