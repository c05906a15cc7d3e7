"""What a module imports, read from its source (the purity scans of the rules core and the game's maths)."""

from __future__ import annotations

import ast


def imported(tree: ast.AST) -> set[str]:
    """Every module ``tree`` imports by absolute name (``import x.y``, ``from x.y import z``)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names
