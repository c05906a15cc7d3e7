"""The core imports no framework, database, queue, randomness nor clock (AST scan of tables/rules)."""

from __future__ import annotations

import ast
from pathlib import Path

import tables.rules

FORBIDDEN_MODULES = ("django", "rest_framework", "celery", "redis", "psycopg", "random", "secrets", "kombu")
PACKAGE = Path(tables.rules.__file__).parent


def _modules() -> list[Path]:
    return sorted(PACKAGE.glob("*.py"))


def _imported(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_the_scan_sees_every_module() -> None:
    assert {p.name for p in _modules()} >= {"decide.py", "evolve.py", "shuffle.py", "view.py", "__init__.py"}


def test_no_module_imports_a_framework_database_queue_or_randomness() -> None:
    for path in _modules():
        for name in _imported(ast.parse(path.read_text(), str(path))):
            root = name.split(".")[0]
            assert root not in FORBIDDEN_MODULES, f"{path.name} imports {name}"


def test_no_module_reads_the_clock() -> None:
    clock_calls = {"now", "utcnow", "today", "time", "time_ns", "monotonic", "perf_counter", "urandom", "token_hex"}
    for path in _modules():
        tree = ast.parse(path.read_text(), str(path))
        assert "datetime" not in _imported(tree) and "time" not in _imported(tree), path.name
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                assert node.func.attr not in clock_calls, f"{path.name}:{node.lineno} calls .{node.func.attr}()"


def test_only_the_standard_library_is_imported() -> None:
    import sys

    for path in _modules():
        for name in _imported(ast.parse(path.read_text(), str(path))):
            root = name.split(".")[0]
            assert root in sys.stdlib_module_names or root == "__future__", f"{path.name} imports {name}"
