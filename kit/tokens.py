"""API tokens (API.md v1.1): stored hashed, expiring, revocable. The accounts side of them, used by the REST
authentication (``kit.authentication``), the WebSocket's auth message (``tables.live``) and the player
services (``accounts.services``, which issue a token on registration and sign-in).

A token is 64 random hex characters (django-rest-knox's ``AuthToken``): the database keeps only its SHA-512
digest and its first 15 characters (the lookup index), so whoever reads the database cannot sign in with what he
reads. Each token expires ``settings.API_TOKEN_TTL`` (24 hours by default) after it was issued; ``POST
/auth/token`` issues a new one, ``POST /auth/logout`` revokes the one used, and a password change revokes every
token of the user (a trigger of migration ``casino.0006``: passwords are the owner's to change). The header stays
the contract's ``Authorization: Token <key>``. Staff get no token (:func:`issue_token`).

:func:`find_token` is the one function that turns a key into a token: :func:`user_for_token` and the REST
authentication both call it. It checks the key's shape before asking the database (a NUL byte, which PostgreSQL
text cannot hold, or 5 kB of junk, costs no query).
"""

from __future__ import annotations

import re
from hmac import compare_digest
from typing import Any

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import connection
from django.utils import timezone
from knox.crypto import hash_token
from knox.models import AuthToken, get_digest_token
from knox.settings import CONSTANTS

TOKEN_KEY = re.compile(r"[0-9a-f]{64}")


class StaffTokenRefused(Exception):
    """403 ``forbidden``: API tokens are for players; staff use the API through their admin session."""

    code = "forbidden"

    def __init__(self) -> None:
        super().__init__("Staff accounts get no API token: sign in to the admin, whose session the API accepts.")


def issue_token(user: AbstractBaseUser) -> str:
    """A new token for ``user`` (expiring after ``settings.API_TOKEN_TTL``); returns the key, shown once.

    The row is inserted by ``accounts_issue_token`` (SECURITY DEFINER, migration ``casino.0006``): the application
    role inserts no token itself, and the function refuses staff, superusers and inactive accounts, so whoever
    holds the application's database role mints no operator's credential (issue #43). A staff account is refused
    here first, with :class:`StaffTokenRefused`."""
    if getattr(user, "is_staff", False) or getattr(user, "is_superuser", False):
        raise StaffTokenRefused()
    AuthToken.objects.filter(user=user, expiry__lt=timezone.now()).delete()  # the user's expired ones
    digest, key = get_digest_token()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT accounts_issue_token(%s, %s, %s, %s)",
            [user.pk, digest, key[: CONSTANTS.TOKEN_KEY_LENGTH], timezone.now() + settings.API_TOKEN_TTL],
        )
    return str(key)


def find_token(key: str) -> tuple[AuthToken | None, bool]:
    """``(token, expired)`` for a key: ``(None, False)`` if no token has that key. One query."""
    if not isinstance(key, str) or not TOKEN_KEY.fullmatch(key):
        return None, False
    digest = hash_token(key)
    for token in AuthToken.objects.filter(token_key=key[: CONSTANTS.TOKEN_KEY_LENGTH]).select_related("user"):
        if compare_digest(token.digest, digest):
            if token.expiry is not None and token.expiry <= timezone.now():
                token.delete()
                return None, True
            return token, False
    return None, False


def user_for_token(key: str) -> Any | None:
    """The active user whose unexpired, unrevoked token ``key`` is, or ``None``. For the WebSocket's auth
    message and any other caller outside DRF (stable name: other modules depend on it)."""
    token, _ = find_token(key)
    if token is None or not token.user.is_active:
        return None
    return token.user


def revoke_token(token: AuthToken) -> None:
    """Revoke one token at once (``POST /auth/logout``)."""
    AuthToken.objects.filter(pk=token.pk).delete()


def revoke_all_tokens(user: AbstractBaseUser) -> int:
    """Revoke every token of ``user``; returns how many there were."""
    deleted, _ = AuthToken.objects.filter(user=user).delete()
    return deleted
