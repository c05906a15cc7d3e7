"""Which game and which rules decide a hand (API.md "Hand history": ``game``; the regulators' "game identifier
and version"), recorded on each hand when it opens (docs/fairness.md, "Which rules dealt a hand").

- ``GAME_ID``: the game, ``"seven-and-a-half"``.
- ``RULES_VERSION``: the released version of the rules. Raise it in the release that changes how hands are
  decided (anything in these packages); the digest below changes with any byte of them anyway.
- :func:`rules_sha256`: a digest of the code that decides hands: the game's maths and the rules core (every
  ``*.py`` file directly in ``gamemath/`` and in ``rules/``). It is sha256 of the lines ``<sha256 hex of the
  file's bytes>  <directory>/<name>`` (two spaces, one line each, ending in a newline), sorted by path byte by
  byte: what ``LC_ALL=C sha256sum gamemath/*.py rules/*.py | sha256sum`` prints at the root of the repository.

Standard library only (the outside verifier, ``tools/verify_hand.py``, computes its own copy's digest with it).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

GAME_ID = "seven-and-a-half"
RULES_VERSION = "1.2.0"
ROOT = Path(__file__).resolve().parent.parent
DECIDING_PACKAGES = ("gamemath", "rules")  # the code that decides hands


def rules_sha256(root: Path = ROOT) -> str:
    """The digest of the code that decides hands in the checkout at ``root`` (module docstring): sha256 of its
    ``sha256sum`` listing."""
    files = sorted(
        (f"{package}/{path.name}", path) for package in DECIDING_PACKAGES for path in (root / package).glob("*.py")
    )
    listing = "".join(f"{hashlib.sha256(path.read_bytes()).hexdigest()}  {name}\n" for name, path in files)
    return hashlib.sha256(listing.encode()).hexdigest()
