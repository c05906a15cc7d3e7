"""The core imports no framework, database, queue, randomness nor clock (AST scan of rules/; the game's maths it
builds on, gamemath/, is scanned by tests/gamemath/test_purity.py)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import gamemath
import rules
from tests.support.imports_scan import imported

FORBIDDEN_MODULES = ("django", "rest_framework", "celery", "redis", "psycopg", "random", "secrets", "kombu")
#: The one library beside the standard library the core may use, and why: msgspec's ``Struct`` gives the core's
#: records (frozen, keyword-only, compared by value) at a fraction of a dataclass's cost to build and copy, and its
#: conversion turns them into plain JSON and back, checking every field's type. It does no I/O and reads no clock
#: or randomness.
ALLOWED_LIBRARIES = {"msgspec": {"msgspec", "msgspec.structs", "msgspec.json"}}
PACKAGE = Path(rules.__file__).parent
#: The project's own packages the core may import: itself and the game's standard-library maths.
OWN = {"rules", gamemath.__name__}


def _modules() -> list[Path]:
    return sorted(PACKAGE.glob("*.py"))


def _standard(name: str) -> bool:
    """Whether the module ``name`` is of the standard library (``__future__`` included)."""
    root = name.split(".")[0]
    return root in sys.stdlib_module_names or root == "__future__"


def test_the_scan_sees_every_module() -> None:
    assert {p.name for p in _modules()} >= {"decide.py", "evolve.py", "draft.py", "view.py", "__init__.py"}


def test_no_module_imports_a_framework_database_queue_or_randomness() -> None:
    for path in _modules():
        for name in imported(ast.parse(path.read_text(), str(path))):
            root = name.split(".")[0]
            assert root not in FORBIDDEN_MODULES, f"{path.name} imports {name}"


def test_no_module_reads_the_clock() -> None:
    clock_calls = {"now", "utcnow", "today", "time", "time_ns", "monotonic", "perf_counter", "urandom", "token_hex"}
    for path in _modules():
        tree = ast.parse(path.read_text(), str(path))
        assert "datetime" not in imported(tree) and "time" not in imported(tree), path.name
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                assert node.func.attr not in clock_calls, f"{path.name}:{node.lineno} calls .{node.func.attr}()"


def test_only_the_standard_library_the_game_maths_and_msgspec_records_areimported() -> None:
    for path in _modules():
        for name in imported(ast.parse(path.read_text(), str(path))):
            root = name.split(".")[0]
            if root in OWN:
                continue
            if root in ALLOWED_LIBRARIES:
                assert name in ALLOWED_LIBRARIES[root], f"{path.name} imports {name}"
                continue
            assert _standard(name), f"{path.name} imports {name}"


def test_the_core_takes_only_records_and_their_conversion_from_msgspec() -> None:
    used: set[str] = set()
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "msgspec":
                used.update(f"{node.module}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "msgspec":
                used.add(f"msgspec.{node.attr}")
    # Meta: a record's field help text and bounds, published as they are in the API's schema (tables/api/openapi.py);
    # UNSET: an action body's argument left out (rules/actions.py)
    records = {
        "msgspec.Struct",
        "msgspec.Meta",
        "msgspec.field",
        "msgspec.structs",
        "msgspec.structs.replace",
        "msgspec.structs.fields",
        "msgspec.UNSET",
        "msgspec.UnsetType",
    }
    conversion = {"msgspec.convert", "msgspec.json", "msgspec.ValidationError"}
    assert used <= records | conversion, used
    assert "msgspec.Struct" in used
