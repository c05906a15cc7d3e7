"""NIST SP 800-22 rev. 1a on the shuffle's keystream, by PyPI's ``nistrng`` (pinned in pyproject.toml).

Each test nistrng judges eligible for the sequence's length runs on its own copy of the bits (some of nistrng's
tests rewrite the array they are given, so one array shared by the battery corrupts the tests after them), as
64-bit integers (nistrng 1.2.3 sums int8 scalars, which overflow under numpy 2). A test reporting several
p-values (template, serial, excursion tests) gives each of them to the report.

Three tests are left out, with the reason in the report (:data:`EXCLUDED`): under numpy 2, nistrng 1.2.3's
``linear_complexity`` and ``random_excursion`` answer p = 0 for ``os.urandom``'s output and
``random_excursion_variant`` answers "p-values" above 1 (checked when this module was written:
docs/certification.md), so their figures would measure the package, not the shuffle.
"""

from __future__ import annotations

import numpy
from nistrng import SP800_22R1A_BATTERY

from certify import keystream
from certify.stats import PValue

#: The tests not run, and why.
EXCLUDED: dict[str, str] = {
    "linear_complexity": "nistrng 1.2.3 answers p = 0 for os.urandom's output under numpy 2",
    "random_excursion": "nistrng 1.2.3 answers p = 0 for os.urandom's output under numpy 2",
    "random_excursion_variant": "nistrng 1.2.3 answers p-values above 1 (not a probability) under numpy 2",
}


def bits_of(count: int, master: bytes | None = None) -> numpy.ndarray:
    """The first ``count`` bits of the keystream (hands' draws in order, each word most significant bit first)."""
    words: list[int] = []
    for hand in keystream.hands(10**12, master):
        words.extend(hand.draws)
        if len(words) * 32 >= count:
            break
    raw = numpy.array(words, dtype=">u4").view(numpy.uint8)
    return numpy.unpackbits(raw)[:count].astype(numpy.int64)


def run(bit_count: int, master: bytes | None = None) -> list[PValue]:
    """Every eligible SP 800-22 test (but :data:`EXCLUDED`) on ``bit_count`` bits of the keystream."""
    bits = bits_of(bit_count, master)
    found = []
    for key, test in SP800_22R1A_BATTERY.items():
        if key in EXCLUDED or not test.is_eligible(bits.copy()):
            continue
        result, elapsed_ms = test.run(bits.copy())
        scores = numpy.atleast_1d(result._score_list)  # every p-value of the test (``score`` is their mean)
        for i, p in enumerate(scores):
            if numpy.isnan(p):
                continue  # a sub-test without enough data in this sequence
            suffix = f" #{i + 1}" if len(scores) > 1 else ""
            found.append(
                PValue(
                    name=f"SP 800-22 {result.name}{suffix}",
                    p=float(p),
                    detail=f"{bit_count:,} bits, {elapsed_ms:.0f} ms",
                )
            )
    return found
