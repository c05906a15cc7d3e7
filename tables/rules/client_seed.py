"""The client-seed alphabet (API.md): 1-64 characters, each printable ASCII other than space and ``:``.

``:`` joins the participants' client seeds into a hand's client seed, so a seed containing it could pass for
two; a space is easy to lose when a player copies his seed into a verifier.
"""

from __future__ import annotations

MAX_LENGTH = 64


def check_client_seed(value: object) -> str | None:
    """None if ``value`` is a valid client seed, else the error message to show."""
    if not isinstance(value, str) or not 1 <= len(value) <= MAX_LENGTH:
        return f"a client seed is 1-{MAX_LENGTH} characters"
    if any(not "!" <= ch <= "~" or ch == ":" for ch in value):
        return "a client seed uses printable ASCII characters other than space and ':'"
    return None
