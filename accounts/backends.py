"""The password check of every sign-in (admin and ``POST /auth/token``), behind axes's backend.

Django's ``ModelBackend`` rewrites a stored hash at sign-in when the preferred hasher or its work factor changed.
The application role may not write a password (issue #43, backoffice/dbroles.py: UPDATE on ``last_login`` only),
so that rewrite would turn a correct sign-in into a refused statement. This backend checks the password the same
way and leaves the stored hash as it is: a stronger hash comes with the next password the owner sets.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.hashers import check_password
from django.http import HttpRequest


class PasswordBackend(ModelBackend):
    """``ModelBackend`` without the hash upgrade (module docstring)."""

    def authenticate(
        self, request: HttpRequest | None, username: str | None = None, password: str | None = None, **kwargs: Any
    ) -> Any:
        user_model = get_user_model()
        if username is None:
            username = kwargs.get(user_model.USERNAME_FIELD)
        if username is None or password is None:
            return None
        try:
            user = user_model._default_manager.get_by_natural_key(username)
        except user_model.DoesNotExist:
            user_model().set_password(password)  # as long as a known user's check (Django's own defence)
            return None
        if check_password(password, user.password) and self.user_can_authenticate(user):
            return user
        return None
