"""The verifier's output: one line per check ("ok" or "FAIL"), notes for what could not be checked, and the exit
status."""

from __future__ import annotations


class Report:
    """The lines printed so far, and how many failed or could not be checked."""

    def __init__(self) -> None:
        self.failed = 0
        self.unchecked = 0

    def line(self, ok: bool, check: str, text: str) -> bool:
        """Print one check's line; ``ok`` is returned."""
        if not ok:
            self.failed += 1
        print(f"{'ok  ' if ok else 'FAIL'} {check:<12} {text}")
        return ok

    def note(self, check: str, text: str) -> None:
        """Something that could not be checked: said, not counted as passed."""
        self.unchecked += 1
        print(f"--   {check:<12} {text}")

    def summary(self) -> int:
        """The last line (what passed, what failed); the exit status: 1 when a check failed, else 0."""
        if self.failed:
            print(f"{self.failed} check(s) FAILED")
        elif self.unchecked:
            print(f"every check passed; {self.unchecked} thing(s) could not be checked (--)")
        else:
            print("every check passed")
        return 1 if self.failed else 0
