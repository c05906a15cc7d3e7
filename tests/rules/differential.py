"""Differential check of the rules core against another revision: the same commands give the same answers.

Usage: python tests/rules/differential.py --against REV [--tables 40] [--steps 250]

Random play (``rules_random_play``: every preset, both banks, rigged picture-heavy stocks on every other table)
is recorded through this checkout's core: each command, its context, the state before it, and what the core
answered (the events, or the refusal's code, message and details) with the state after. A revision's core, in
a temporary worktree and a process of its own, then re-runs every recorded step from its recorded state and must
answer the same, to the byte of the JSON. A revision whose ``handle`` takes no context (before issue #28) gets it
inside the command, as ``ctx``. Exit status 1 if any step differs.
"""

from __future__ import annotations

import argparse
import inspect
import json
import random
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def record(tables: int, steps: int) -> Iterator[dict[str, Any]]:
    """The steps of random play through this checkout's core, as JSON-ready records."""
    sys.path.insert(0, str(ROOT))
    from rules import command_to_json, context_to_json, event_to_json, state_to_json
    from tests.rules.rules_random_play import PRESETS, RandomTable

    for n in range(tables):
        table = RandomTable(random.Random(n), PRESETS[n % len(PRESETS)], "house" if n % 3 == 0 else "player")
        table.rig_pictures = n % 2 == 0
        table.setup(1 + n % 4)
        for _ in table.run(steps):
            pass
        for step in table.steps:
            error = step.error
            yield {
                "command": command_to_json(step.command),
                "context": context_to_json(step.context),
                "before": state_to_json(step.before),
                "events": [event_to_json(e) for e in step.events] if step.accepted else None,
                "error": None if error is None else [error.code, error.message, error.details],
                "after": state_to_json(step.after),
            }


def check(checkout: Path, recorded: Path) -> int:
    """Re-run ``recorded`` through ``checkout``'s core (call in a process of its own); print and count the steps
    it answers differently."""
    sys.path.insert(0, str(checkout))
    if (checkout / "rules").is_dir():
        import rules
    else:  # a revision from before the core had its own package
        from tables import rules  # type: ignore[no-redef]

    beside = "context" in inspect.signature(rules.handle).parameters
    differ = steps = 0
    for line in recorded.open():
        step = json.loads(line)
        state = rules.state_from_json(step["before"])
        if beside:
            command, context = rules.recorded_command(step["command"], step["context"])
            arguments: tuple[Any, ...] = (command, state, context)
        else:
            arguments = (rules.command_from_json({**step["command"], "ctx": step["context"]}), state)
        try:
            events, after = rules.handle(*arguments)
            answer = {"events": [rules.event_to_json(e) for e in events], "error": None}
            answer["after"] = rules.state_to_json(after)
        except rules.DomainError as refused:
            answer = {"events": None, "error": [refused.code, refused.message, refused.details]}
            answer["after"] = step["before"]
        answer = json.loads(json.dumps(answer))
        steps += 1
        if answer != {key: step[key] for key in ("events", "error", "after")}:
            differ += 1
            if differ <= 3:
                print(f"step {steps} ({step['command']['type']}) differs: {json.dumps(answer)[:400]}")
    print(f"{steps} steps re-run by {checkout.name}: {differ} differ")
    return differ


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", metavar="REV", required=False, help="the git revision to compare with")
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--steps", type=int, default=250)
    parser.add_argument("--check", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.check is not None:
        sys.exit(1 if check(*args.check) else 0)
    if not args.against:
        parser.error("--against REV is required")
    with tempfile.TemporaryDirectory() as scratch:
        recorded = Path(scratch) / "steps.jsonl"
        with recorded.open("w") as out:
            for step in record(args.tables, args.steps):
                out.write(json.dumps(step, sort_keys=True) + "\n")
        tree = Path(scratch) / "against"
        add = ["git", "-C", str(ROOT), "worktree", "add", "--quiet", "--detach", str(tree), args.against]
        subprocess.run(add, check=True)
        try:
            child = [sys.executable, str(Path(__file__).resolve()), "--check", str(tree), str(recorded)]
            status = subprocess.run(child, check=False).returncode
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=True)
    sys.exit(status)


if __name__ == "__main__":
    main()
