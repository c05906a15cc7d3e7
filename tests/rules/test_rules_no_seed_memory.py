"""Plain seeds do not outlive the command that needs them (DESIGN.md principle 13): the core keeps no cache across
calls (a cache keyed by a plain seed, as ``_deck`` and ``_opens`` once had, would hold the seed of a hand in play,
and its undealt cards, in process memory after the command), neither does the game's maths it builds on (the
shuffle lives there). What a record that never holds a seed works out about itself when it is built (a ``Rules``:
its reserve multipliers, from its toggles only) is no cache; a ``cached_property`` would be allowed only on such a
record, and none is left."""

from __future__ import annotations

import ast
from pathlib import Path

import gamemath
import rules

PACKAGES = (Path(gamemath.__file__).parent, Path(rules.__file__).parent)
CACHES = {"lru_cache", "cache", "cached_property"}
#: Classes whose ``cached_property`` memos may stay: records that never hold a seed (file, class).
SEEDLESS: set[tuple[str, str]] = set()


def _cached(path: Path, node: ast.AST, owner: str | None) -> None:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in child.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
                allowed = name == "cached_property" and (path.name, owner) in SEEDLESS
                assert name not in CACHES or allowed, f"{path.name}: {child.name} is cached across calls"
        _cached(path, child, child.name if isinstance(child, ast.ClassDef) else owner)


def test_no_module_of_the_core_or_the_game_maths_caches_across_calls() -> None:
    paths = sorted(path for package in PACKAGES for path in package.glob("*.py"))
    assert {"shuffle.py", "ruleset.py", "draft.py"} <= {path.name for path in paths}
    for path in paths:
        _cached(path, ast.parse(path.read_text(), path.name), None)


def test_the_guard_sees_a_cache() -> None:
    """A cached function anywhere, or a ``cached_property`` on a record that may hold a seed, fails the guard."""
    for source in (
        "import functools\n@functools.lru_cache\ndef deck(seed): ...\n",
        "from functools import cached_property\nclass HandState:\n    @cached_property\n    def deck(self): ...\n",
        "from functools import cached_property\nclass Rules:\n    @cached_property\n    def deck(self): ...\n",
    ):
        try:
            _cached(Path("draft.py"), ast.parse(source), None)
        except AssertionError:
            continue
        raise AssertionError(f"the guard missed: {source!r}")
