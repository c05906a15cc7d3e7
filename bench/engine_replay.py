"""The rules core's cost per hand, steady enough to compare two versions on a shared machine.

Usage: python bench/engine_replay.py [--hands 600] [--passes 9] [--rounds 2] [--preset P ...] [--against REV] [--cpu]

``bench/engine.py`` times a driver playing random hands with the wall clock; on a shared 2-vCPU machine its runs
vary by +-30%. This script records what that driver sends (the same driver, seed 1, 4 punters, player bank), then
replays the recorded ``(command, state, context)`` calls through ``handle`` and keeps the fastest of ``--passes``
passes: the time the core itself needs, per hand, with other processes' interference filtered out the way ``timeit``
does (the minimum).

``--against REV`` measures a git revision too, in a temporary worktree, and prints both figures and their ratio;
the two versions run in separate processes (two versions of ``tables`` never meet in one process), alternating,
``--rounds`` times each, keeping each one's fastest. Any revision works whose ``bench/engine.py`` has the
``Bench(preset, punters, bank, seed)`` driver (3466ab3, the core before issue #18, has it).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PRESETS = ("classic", "italian", "spanish", "hungarian")


def measure_here(checkout: Path, presets: list[str], hands: int, passes: int, cpu: bool = False) -> dict[str, float]:
    """Microseconds per hand of ``checkout``'s core for each preset (call in a process of its own)."""
    sys.path.insert(0, str(checkout))
    spec = importlib.util.spec_from_file_location("checkout_bench_engine", checkout / "bench" / "engine.py")
    assert spec is not None and spec.loader is not None
    engine: Any = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(engine)
    # the checkout's own core: ``rules`` since the package move (#29), ``tables.rules`` in older revisions (f247328)
    core = importlib.import_module("rules" if (checkout / "rules" / "__init__.py").exists() else "tables.rules")
    DomainError, handle = core.DomainError, core.handle

    clock = time.process_time if cpu else time.perf_counter
    figures: dict[str, float] = {}
    for preset in presets:
        recorded: list[tuple[Any, ...]] = []

        def record(*arguments: Any, recorded: list[tuple[Any, ...]] = recorded) -> Any:
            recorded.append(arguments)  # (command, state), or (command, state, context) since issue #28
            return handle(*arguments)

        engine.handle = record  # the driver calls its module's handle: it now records each call first
        bench = engine.Bench(preset, 4, "player", 1)
        bench.play(hands)
        engine.handle = handle
        fastest = float("inf")
        for _ in range(passes):
            start = clock()
            for arguments in recorded:
                with contextlib.suppress(DomainError):  # a refused try of the driver costs its checks, as in the game
                    handle(*arguments)
            fastest = min(fastest, clock() - start)
        figures[preset] = fastest / bench.hands * 1e6
    return figures


def measure(checkout: Path, presets: list[str], hands: int, passes: int, cpu: bool = False) -> dict[str, float]:
    """``measure_here`` in a fresh process for ``checkout``."""
    command = [sys.executable, str(Path(__file__).resolve()), "--child", str(checkout), "--hands", str(hands)]
    command += ["--passes", str(passes), *(f"--preset={p}" for p in presets), *(["--cpu"] if cpu else [])]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    figures: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return figures


def instructions(checkout: Path, preset: str, hands: int) -> float:
    """Machine instructions per hand of ``checkout``'s replay of ``preset``, counted by valgrind (callgrind): the
    count of a child making 3 passes minus one making 1, halved. Load cannot move it (hash seed fixed)."""
    counts = []
    for passes in (1, 3):
        command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable]
        command += [str(Path(__file__).resolve()), "--child", str(checkout), "--hands", str(hands)]
        command += ["--passes", str(passes), f"--preset={preset}"]
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        err = subprocess.run(command, check=True, capture_output=True, text=True, env=env).stderr
        counts.append(int(re.findall(r"I\s+refs:\s+([\d,]+)", err)[-1].replace(",", "")))
    return (counts[1] - counts[0]) / 2 / hands


@contextlib.contextmanager
def checkouts(against: str | None) -> Iterator[dict[str, Path]]:
    """The versions to measure by name: ``against`` (in a temporary worktree, removed afterwards) and this one."""
    if not against:
        yield {"this checkout": ROOT}
        return
    with tempfile.TemporaryDirectory() as scratch:
        tree = Path(scratch) / "against"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--quiet", "--detach", str(tree), against], check=True
        )
        try:
            yield {against: tree, "this checkout": ROOT}
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=600)
    parser.add_argument("--passes", type=int, default=9)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--preset", choices=PRESETS, action="append")
    parser.add_argument("--against", metavar="REV", help="a git revision to measure beside this checkout")
    parser.add_argument("--cpu", action="store_true", help="time each pass in this process's CPU time, not wall clock")
    parser.add_argument(
        "--instructions", action="store_true", help="count machine instructions per hand under valgrind instead"
    )
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    presets = args.preset or list(PRESETS)
    if args.child is not None:
        print(json.dumps(measure_here(args.child, presets, args.hands, args.passes, args.cpu)))
        return
    if args.instructions:
        print_instructions(args, presets)
        return
    print(
        f"rules core: the recorded commands of {args.hands} hands per preset (4 punters, player bank) replayed "
        f"through handle, fastest of {args.passes} passes, best of {args.rounds} rounds; microseconds per hand"
        f" ({'CPU time' if args.cpu else 'wall clock'})"
    )
    with checkouts(args.against) as versions:
        best: dict[str, dict[str, float]] = {name: {} for name in versions}
        for _ in range(args.rounds):
            for name, checkout in versions.items():  # alternating, so both see the same machine
                for preset, us in measure(checkout, presets, args.hands, args.passes, args.cpu).items():
                    best[name][preset] = min(us, best[name].get(preset, float("inf")))
    names = list(versions)
    header = "".join(f"{name:>16s}" for name in names)
    print(f"{'preset':10s}{header}" + ("   speed, this checkout / " + names[0] if len(names) == 2 else ""))
    for preset in presets:
        row = "".join(f"{best[name][preset]:14.0f}us" for name in names)
        ratio = f"   {best[names[0]][preset] / best[names[1]][preset]:.2f}x" if len(names) == 2 else ""
        print(f"{preset:10s}{row}{ratio}")


def print_instructions(args: argparse.Namespace, presets: list[str]) -> None:
    """``--instructions``: thousands of machine instructions per hand, this checkout beside ``--against``."""
    print(f"rules core: the recorded commands of {args.hands} hands per preset replayed through handle under valgrind;")
    print("thousands of machine instructions per hand (deterministic: the load cannot move it)")
    with checkouts(args.against) as versions:
        counts = {name: {p: instructions(tree, p, args.hands) for p in presets} for name, tree in versions.items()}
    names = list(versions)
    print(
        f"{'preset':10s}"
        + "".join(f"{name:>16s}" for name in names)
        + ("   this checkout / " + names[0] if len(names) == 2 else "")
    )
    for preset in presets:
        row = "".join(f"{counts[name][preset] / 1000:15.0f}k" for name in names)
        ratio = f"   {counts[names[1]][preset] / counts[names[0]][preset]:.3f}" if len(names) == 2 else ""
        print(f"{preset:10s}{row}{ratio}")


if __name__ == "__main__":
    main()
