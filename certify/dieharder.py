"""Debian's ``dieharder`` on the shuffle's keystream, fed on its standard input (``-g 200``, stdin_input_raw).

The keystream is written to the pipe as dieharder reads it (never a file that dieharder would rewind). Each line
of dieharder's table gives a test, its parameters and a p-value; every one of them goes into the report.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from certify import keystream
from certify.stats import PValue

#: The suite's subset: quick tests that read a few million words (``-d`` numbers of ``dieharder -l``).
SHORT_TESTS: tuple[tuple[int, int], ...] = ((0, 20), (15, 20), (100, 20), (101, 20))  # (test, psamples)


@dataclass(frozen=True, slots=True)
class Missing:
    """dieharder is not installed here (``.ci/run`` installs it from Debian)."""

    reason: str


def available() -> str | None:
    """The dieharder executable, or None."""
    return shutil.which("dieharder")


def _feed(pipe: object, words: Iterable[bytes]) -> None:
    try:
        for chunk in words:
            pipe.write(chunk)  # type: ignore[attr-defined]
    except (BrokenPipeError, ValueError, OSError):
        pass  # dieharder read what it needed and closed its end
    finally:
        with contextlib.suppress(BrokenPipeError, OSError):
            pipe.close()  # type: ignore[attr-defined]


def _chunks(master: bytes | None) -> Iterator[bytes]:
    batch: list[bytes] = []
    for hand in keystream.hands(10**12, master):
        batch.append(keystream.keystream_bytes(hand))
        if len(batch) == 256:
            yield b"".join(batch)
            batch = []


def parse(output: str) -> list[PValue]:
    """The p-values of dieharder's result table (``name | ntup | tsamples | psamples | p-value | assessment``)."""
    found = []
    for line in output.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) < 6 or cells[0].startswith("test_name") or cells[0].startswith("#"):
            continue
        try:
            p = float(cells[4])
        except ValueError:
            continue
        found.append(
            PValue(
                name=f"dieharder {cells[0]} ntup={cells[1]}",
                p=p,
                detail=f"tsamples {cells[2]}, psamples {cells[3]}, dieharder says {cells[5]}",
            )
        )
    return found


def run(tests: Iterable[tuple[int, int]] | None, master: bytes | None = None) -> list[PValue] | Missing:
    """Run dieharder's ``tests`` ((number, psamples) pairs; None: the whole battery, ``-a``) on the keystream."""
    exe = available()
    if exe is None:
        return Missing("dieharder is not installed (apt-get install dieharder; .ci/run does)")
    runs = [["-a"]] if tests is None else [["-d", str(d), "-p", str(p)] for d, p in tests]
    found: list[PValue] = []
    for args in runs:
        proc = subprocess.Popen(
            [exe, "-g", "200", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
        feeder = threading.Thread(target=_feed, args=(proc.stdin, _chunks(master)), daemon=True)
        feeder.start()
        assert proc.stdout is not None
        output = proc.stdout.read().decode(errors="replace")
        proc.wait()
        feeder.join(timeout=5)
        found.extend(parse(output))
    return found
