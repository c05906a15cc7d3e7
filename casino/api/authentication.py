"""Token authentication that checks the key's shape before asking the database.

DRF's keys are 40 lowercase hex characters. Anything else (a NUL byte, which PostgreSQL text cannot hold and
would turn into a 500, or 5 kB of junk) is refused as 401 ``not_authenticated`` without a query. (Imports
nothing of the API: ``rest_framework.views`` imports the default authentication classes.)
"""

from __future__ import annotations

import re
from typing import Any

from rest_framework import authentication, exceptions

TOKEN_KEY = re.compile(r"[0-9a-f]{40}")


class TokenAuthentication(authentication.TokenAuthentication):
    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        if not TOKEN_KEY.fullmatch(key):
            raise exceptions.AuthenticationFailed("Invalid token.")
        return super().authenticate_credentials(key)


def user_for_token(key: str) -> Any | None:
    """The active user whose API token is ``key``, or ``None``: the check ``TokenAuthentication`` makes, for
    callers outside DRF (the WebSocket's ``auth`` message)."""
    if not isinstance(key, str) or not TOKEN_KEY.fullmatch(key):
        return None
    try:
        user, _ = TokenAuthentication().authenticate_credentials(key)
    except exceptions.AuthenticationFailed:
        return None
    return user
