"""Staff for the tests, made the one way the project makes them (``backoffice.staff``), as the owner role: the
application role the tests connect as may not (issue #43). The owner's connection commits at once, so a staff
member made during a test that runs in a transaction outlives it (until the next transactional test's flush):
every name is fresh."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser

from backoffice.staff import staff_account_create
from tests.conftest import owner_cursor


def staff_user(username: str, role: str | None, *, password: str) -> AbstractBaseUser:
    """A staff member ``username`` in ``role`` (operator, auditor, superuser or ``None``) with ``password``."""
    with owner_cursor() as cursor:
        user_id, _ = staff_account_create(cursor, username=username, password=password, role=role)
    return get_user_model().objects.get(pk=user_id)
