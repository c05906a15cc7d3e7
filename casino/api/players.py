"""Player services of the API: registration, the player profile and the client seed.

``set_client_seed`` is the one entry point for changing a client seed: the game extends it to carry the new
seed to the tables the player sits at.
"""

from __future__ import annotations

import hashlib
import re
import secrets

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import connection, transaction
from rest_framework.authtoken.models import Token

from casino.api.errors import invalid_field
from tables.models import PlayerProfile
from tables.services import player_set_client_seed

# Letters, digits and . _ - (no ':' or spaces: a username is part of ledger account codes and of URLs in
# clients), starting with a letter or digit. Unique regardless of case, so "Alice" cannot pose as "alice".
USERNAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{2,29}")
USERNAME_RULE = "3-30 characters: letters, digits, '.', '_' and '-', starting with a letter or a digit."
# Printable ASCII without spaces: unambiguous in every client, and in the hand's combined client seed.
CLIENT_SEED_PATTERN = re.compile(r"[\x21-\x7e]{1,64}")
CLIENT_SEED_RULE = "1-64 printable ASCII characters, no spaces."


def new_client_seed() -> str:
    """A fresh random client seed (32 hex characters), for a player who has not chosen one."""
    return secrets.token_hex(16)


def check_username(username: str) -> str:
    if not USERNAME_PATTERN.fullmatch(username):
        raise invalid_field("username", f"A username has {USERNAME_RULE}")
    return username


def check_client_seed(seed: str) -> str:
    if not isinstance(seed, str) or not CLIENT_SEED_PATTERN.fullmatch(seed):
        raise invalid_field("client_seed", f"A client seed has {CLIENT_SEED_RULE}")
    return seed


@transaction.atomic
def player_register(*, username: str, password: str) -> tuple[AbstractBaseUser, str]:
    """Create a player (with a profile and an API token) and return it with its token key. The password must
    already have passed Django's password validation. A username taken in any letter case is refused with
    400 ``invalid_request`` naming ``username``; concurrent registrations of one name are serialised."""
    check_username(username)
    user_model = get_user_model()
    with connection.cursor() as cursor:
        digest = hashlib.sha256(f"register:{username.lower()}".encode()).digest()
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [int.from_bytes(digest[:8], "big", signed=True)])
    if user_model._default_manager.filter(username__iexact=username).exists():
        raise invalid_field("username", "A user with that username already exists.")
    user = user_model._default_manager.create_user(username=username, password=password)  # type: ignore[attr-defined]
    PlayerProfile.objects.create(user=user, client_seed=new_client_seed())
    token = Token.objects.create(user=user)
    return user, token.key


def player_profile(user: AbstractBaseUser) -> PlayerProfile:
    """The player's profile, created with a random client seed on first need."""
    profile, _ = PlayerProfile.objects.get_or_create(user=user, defaults={"client_seed": new_client_seed()})
    return profile


@transaction.atomic
def set_client_seed(user: AbstractBaseUser, seed: str) -> PlayerProfile:
    """Set the player's client seed for the hands he joins from now on (1-64 printable ASCII, no spaces), and
    at every table he sits at (a ``SetClientSeed`` command each: it goes into that table's next hand)."""
    check_client_seed(seed)
    player_set_client_seed(user=user, client_seed=seed)
    return PlayerProfile.objects.get(user=user)
