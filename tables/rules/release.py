"""Which game and which rules decide a hand (API.md "Hand history": ``game``; the regulators' "game identifier
and version"), recorded on each hand when it opens (docs/fairness.md, "Which rules dealt a hand").

- ``GAME_ID``: the game, ``"seven-and-a-half"``.
- ``RULES_VERSION``: the released version of the rules. Raise it in the release that changes how hands are
  decided (anything in this package); the digest below changes with any byte of the package anyway.
- :func:`rules_sha256`: a digest of the code that decides hands, the rules core (every ``*.py`` file directly in
  this package, ``tables/rules/``). It is sha256 of the lines ``<sha256 hex of the file's bytes>  tables/rules/<name>``
  (two spaces, one line each, ending in a newline), sorted by file name byte by byte: what
  ``LC_ALL=C sha256sum tables/rules/*.py | sha256sum`` prints at the root of the repository.

Standard library only (the outside verifier, ``tools/verify_hand.py``, computes its own copy's digest with it).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

GAME_ID = "seven-and-a-half"
RULES_VERSION = "1.2.0"
_PACKAGE = Path(__file__).resolve().parent


def rules_sha256(package: Path = _PACKAGE) -> str:
    """The digest of the rules core in ``package`` (module docstring): sha256 of its ``sha256sum`` listing."""
    files = sorted(package.glob("*.py"), key=lambda path: path.name.encode())
    listing = "".join(f"{hashlib.sha256(path.read_bytes()).hexdigest()}  tables/rules/{path.name}\n" for path in files)
    return hashlib.sha256(listing.encode()).hexdigest()
