"""Plain seeds do not outlive the command that needs them (DESIGN.md principle 13): the core keeps no cache across
calls (a cache keyed by a plain seed, as ``_deck`` and ``_opens`` once had, would hold the seed of a hand in play,
and its undealt cards, in process memory after the command)."""

from __future__ import annotations

import ast
from pathlib import Path

import tables.rules

PACKAGE = Path(tables.rules.__file__).parent
CACHES = {"lru_cache", "cache", "cached_property"}


def test_no_module_of_the_core_caches_across_calls() -> None:
    for path in sorted(PACKAGE.glob("*.py")):
        tree = ast.parse(path.read_text(), path.name)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for decorator in node.decorator_list:
                    target = decorator.func if isinstance(decorator, ast.Call) else decorator
                    name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
                    assert name not in CACHES, f"{path.name}: {node.name} is cached across calls"
