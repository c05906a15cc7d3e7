"""``Authorization: Token <key>`` (or ``Bearer <key>``, its synonym: API.md) for DRF, against the hashed, expiring
tokens of :mod:`kit.tokens`; and the same token carried by the reference pages' HttpOnly cookie
(:class:`CookieTokenAuthentication`, CSRF-checked like a session: docs/client.md "Where the page keeps the token").

(Imports nothing of the API: ``rest_framework.views`` imports the default authentication classes.)
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from knox.models import AuthToken
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from kit.tokens import find_token

INVALID = "Invalid token."
#: The schemes the contract accepts, compared without regard to case (RFC 9110: a scheme is case-insensitive).
SCHEMES = (b"token", b"bearer")
EXPIRED = "The token has expired: ask POST /api/v1/auth/token for a new one."


class TokenAuthentication(authentication.TokenAuthentication):
    """``Authorization: Token <key>`` against hashed, expiring tokens. ``request.auth`` is the ``AuthToken``."""

    model = AuthToken

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        """DRF's reading of the header, with ``Bearer`` as a synonym of ``Token``: another scheme is not ours
        (None: the next authentication class may take it), a malformed credential is refused."""
        auth = authentication.get_authorization_header(request).split()
        if not auth or auth[0].lower() not in SCHEMES:
            return None
        if len(auth) != 2:
            raise exceptions.AuthenticationFailed("Invalid token header: give exactly one key after the scheme.")
        try:
            key = auth[1].decode()
        except UnicodeError:
            raise exceptions.AuthenticationFailed("Invalid token header: the key must be plain text.") from None
        return self.authenticate_credentials(key)

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        token, expired = find_token(key)
        if expired:
            raise exceptions.AuthenticationFailed(EXPIRED)
        if token is None:
            raise exceptions.AuthenticationFailed(INVALID)
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        return token.user, token


class CookieTokenAuthentication(TokenAuthentication):
    """The token of the reference pages (``/play/``), in the HttpOnly cookie ``PLAY_TOKEN_COOKIE`` that only the
    pages' sign-in sets: no script of the page can read it. A cookie rides along with any request the browser
    sends, so every unsafe method must carry the page's CSRF token (``X-CSRFToken``), as with a session."""

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        key = request._request.COOKIES.get(settings.PLAY_TOKEN_COOKIE)
        if not key:
            return None
        found = self.authenticate_credentials(key)
        authentication.SessionAuthentication().enforce_csrf(request)
        return found
