"""The client-seed rule (API.md v1.1), in one place for the API, registration defaults and the rules core.

A client seed is 1-64 characters, each printable ASCII other than space and ``:``. The hand's client seed is
the participants' client seeds joined with ``:`` in seat order, so a ``:`` inside one seed would make the joined
string ambiguous ("a:b" + "c" and "a" + "b:c" would give the same deck); a space is refused because clients and
shells trim or split on it.
"""

from __future__ import annotations

import re

CLIENT_SEED_MAX_LENGTH = 64
CLIENT_SEED_RULE = "1-64 characters, each printable ASCII other than space and ':'"
# printable ASCII is 0x20-0x7e; space (0x20) and ':' (0x3a) are left out
_CLIENT_SEED = re.compile(r"[\x21-\x39\x3b-\x7e]{1,64}")


def is_valid_client_seed(value: object) -> bool:
    """True when ``value`` is a string that follows the rule."""
    return isinstance(value, str) and _CLIENT_SEED.fullmatch(value) is not None


def client_seed_error(value: object) -> str | None:
    """A sentence saying what is wrong with ``value`` as a client seed, or None when it is a valid one."""
    if is_valid_client_seed(value):
        return None
    return f"a client seed is {CLIENT_SEED_RULE}"
