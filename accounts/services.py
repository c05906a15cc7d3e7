"""Player and account services: registration (with the API token), the player profile and the client seed.

``set_client_seed`` is the one entry point for changing a client seed: the game extends it to carry the new
seed to the tables the player sits at.
"""

from __future__ import annotations

import hashlib
import re

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import connection, transaction

from accounts.errors import InvalidField
from kit.tokens import issue_token
from rules.client_seed import client_seed_error
from tables.models import PlayerProfile
from tables.services import new_client_seed, player_set_client_seed

# Letters, digits and . _ - (no ':' or spaces: a username is part of ledger account codes and of URLs in
# clients), starting with a letter or digit. Unique regardless of case, so "Alice" cannot pose as "alice".
USERNAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{2,29}")
USERNAME_RULE = "3-30 characters: letters, digits, '.', '_' and '-', starting with a letter or a digit."


def check_username(username: str) -> str:
    if not USERNAME_PATTERN.fullmatch(username):
        raise InvalidField("username", f"A username has {USERNAME_RULE}")
    return username


def check_client_seed(seed: str) -> str:
    """``seed`` if it follows the one client-seed rule (rules.client_seed), else 400 naming the field."""
    error = client_seed_error(seed)
    if error is not None:
        raise InvalidField("client_seed", error[0].upper() + error[1:] + ".")
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
        raise InvalidField("username", "A user with that username already exists.")
    user = user_model._default_manager.create_user(username=username, password=password)  # type: ignore[attr-defined]
    PlayerProfile.objects.create(user=user, client_seed=new_client_seed())
    return user, issue_token(user)


def player_profile(user: AbstractBaseUser) -> PlayerProfile:
    """The player's profile, created with a random client seed on first need."""
    profile, _ = PlayerProfile.objects.get_or_create(user=user, defaults={"client_seed": new_client_seed()})
    return profile


@transaction.atomic
def set_client_seed(user: AbstractBaseUser, seed: str) -> tuple[PlayerProfile, list[tuple[int, int]]]:
    """Set the player's client seed (the rule: rules.client_seed) for the hands he joins from now on, and
    at every table he sits at (a ``SetClientSeed`` command each: it goes into that table's next hand). Returns
    the profile and the (table, version) at which the seed was set at each table (API.md v1.3)."""
    check_client_seed(seed)
    versions = player_set_client_seed(user=user, client_seed=seed)
    return PlayerProfile.objects.get(user=user), versions
