"""The reference pages' sign-in (``/play/``): the API's own sign-in and registration, with the token put in an
HttpOnly cookie instead of the answer, so no script of the page ever holds it (issue #43; docs/client.md "Where the
page keeps the token").

- ``POST /play/session`` ``{username, password}``: ``POST /api/v1/auth/token`` (the same lockout, throttles,
  exclusion check and errors); 200 ``{}`` with the cookie.
- ``POST /play/register`` ``{username, password}``: ``POST /api/v1/auth/register``; 201 ``{id, username}`` with the
  cookie.
- ``POST /play/session/end``: the cookie's token revoked (as ``POST /auth/logout``) and the cookie removed; 204.

Each checks the page's CSRF token (``X-CSRFToken``): another site cannot sign a visitor in to its own account, nor
out. The cookie (``PLAY_TOKEN_COOKIE``): ``HttpOnly``, ``SameSite=Strict``, ``Secure`` where session cookies are,
path ``/``, for the token's lifetime (``API_TOKEN_TTL_S``).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework import status
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.views.auth import RegisterView, TokenView
from kit.tokens import find_token, revoke_token
from responsible.services import session_end


def _csrf(request: Request) -> None:
    SessionAuthentication().enforce_csrf(request)  # 403 forbidden without the page's token


def _into_cookie(response: Response) -> Response:
    """The token of a successful answer moved from its body into the HttpOnly cookie."""
    if response.status_code in (200, 201) and isinstance(response.data, dict) and "token" in response.data:
        token = response.data.pop("token")
        response.set_cookie(
            settings.PLAY_TOKEN_COOKIE,
            token,
            max_age=int(settings.API_TOKEN_TTL.total_seconds()),
            httponly=True,
            secure=settings.SESSION_COOKIE_SECURE,
            samesite="Strict",
        )
    return response


class PageSignInView(TokenView):
    """``POST /play/session``: the API's sign-in, the token in the cookie."""

    schema = None  # the pages', not the API's (not in the OpenAPI schema)

    def post(self, request: Request) -> Response:
        _csrf(request)
        return _into_cookie(super().post(request))


class PageRegisterView(RegisterView):
    """``POST /play/register``: the API's registration, the token in the cookie."""

    schema = None  # the pages', not the API's (not in the OpenAPI schema)

    def post(self, request: Request) -> Response:
        _csrf(request)
        return _into_cookie(super().post(request))


class PageSignOutView(APIView):
    """``POST /play/session/end``: the cookie's token revoked, the cookie removed (also when it had expired)."""

    schema = None  # the pages', not the API's (not in the OpenAPI schema)

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    def post(self, request: Request) -> Response:
        _csrf(request)
        token, _ = find_token(request._request.COOKIES.get(settings.PLAY_TOKEN_COOKIE, ""))
        if token is not None:
            if not token.user.is_staff:  # the player's responsible-gaming session ends at sign-out (API.md v1.3)
                session_end(user=token.user)
            revoke_token(token)
        response = Response(status=status.HTTP_204_NO_CONTENT)
        response.delete_cookie(settings.PLAY_TOKEN_COOKIE, samesite="Strict")
        return response
