"""``Authorization: Token <key>`` for DRF, against the hashed, expiring tokens of :mod:`kit.tokens`.

(Imports nothing of the API: ``rest_framework.views`` imports the default authentication classes.)
"""

from __future__ import annotations

from typing import Any

from knox.models import AuthToken
from rest_framework import authentication, exceptions

from kit.tokens import find_token

INVALID = "Invalid token."
EXPIRED = "The token has expired: ask POST /api/v1/auth/token for a new one."


class TokenAuthentication(authentication.TokenAuthentication):
    """``Authorization: Token <key>`` against hashed, expiring tokens. ``request.auth`` is the ``AuthToken``."""

    model = AuthToken

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        token, expired = find_token(key)
        if expired:
            raise exceptions.AuthenticationFailed(EXPIRED)
        if token is None:
            raise exceptions.AuthenticationFailed(INVALID)
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        return token.user, token
