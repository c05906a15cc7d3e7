"""The report of a reconciliation (``ledger.reconcile``): each check's summary and the differences it found,
as plain data (``manage.py reconcile --json``) or as text (``manage.py reconcile``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Check:
    """One check's outcome: a one-line summary and its differences (at most a limit listed, all counted)."""

    name: str
    summary: str = ""
    differences: list[str] = field(default_factory=list)
    total_differences: int = 0

    @property
    def ok(self) -> bool:
        return self.total_differences == 0

    def add(self, text: str, limit: int) -> None:
        self.total_differences += 1
        if len(self.differences) < limit:
            self.differences.append(text)


@dataclass
class Report:
    """Every check of one reconciliation, the ledger's counts and house bankroll, and when it ran."""

    checks: list[Check]
    counts: dict[str, int]
    at: str
    house_bankroll: int = 0  # house:bankroll and every table's house:bankroll:table:<id>, added up
    table_bankrolls: int = 0

    @property
    def ok(self) -> bool:
        return all(check.ok for check in self.checks)

    @property
    def total_differences(self) -> int:
        return sum(check.total_differences for check in self.checks)

    def check(self, name: str) -> Check:
        return next(check for check in self.checks if check.name == name)

    def to_json(self) -> dict[str, Any]:
        """The report as plain data (``manage.py reconcile --json``)."""
        return {
            "ok": self.ok,
            "at": self.at,
            "counts": dict(self.counts),
            "total_differences": self.total_differences,
            "checks": [
                {
                    "name": check.name,
                    "ok": check.ok,
                    "summary": check.summary,
                    "total_differences": check.total_differences,
                    "differences": list(check.differences),
                }
                for check in self.checks
            ],
        }

    def render(self) -> str:
        """The report as text (``manage.py reconcile``)."""
        lines = [
            f"Ledger reconciliation at {self.at}",
            "  " + ", ".join(f"{count} {name}" for name, count in self.counts.items()),
            f"  house bankroll: {self.house_bankroll} (house:bankroll and {self.table_bankrolls} table bankroll(s))",
            "",
        ]
        for check in self.checks:
            mark = "ok  " if check.ok else "FAIL"
            lines.append(f"[{mark}] {check.name}: {check.summary}")
            lines.extend(f"         - {text}" for text in check.differences)
            hidden = check.total_differences - len(check.differences)
            if hidden:
                lines.append(f"         ... and {hidden} more")
        lines.append("")
        if self.ok:
            lines.append("Result: the ledger reconciles (no differences).")
        else:
            lines.append(f"Result: {self.total_differences} difference(s) found.")
        return "\n".join(lines)
