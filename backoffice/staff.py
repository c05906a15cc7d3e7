"""Staff accounts are the owner's to make (issue #43, DESIGN.md principle 17): the application role may insert
no staff or superuser row (a trigger, migration ``casino.0006``), change no privilege or password and grant no
group. :func:`staff_account_create` is the one way the project makes one, on a cursor of the owner role:
``manage.py staff_account`` (run as the owner), ``make run``'s demo staff and the tests' staff fixtures;
:func:`staff_password_set` the one way an existing staff member's password changes (``manage.py staff_password``).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.contrib.auth.password_validation import validate_password
from django.db import connection, transaction

from backoffice.owner import as_owner
from tables.admin.roles import AUDITOR, OPERATOR

SUPERUSER = "superuser"
STAFF_ROLES = (OPERATOR, AUDITOR, SUPERUSER)


def staff_account_create(cursor: Any, *, username: str, password: str, role: str | None) -> tuple[int, bool]:
    """Make ``username`` a staff member in ``role`` (the operator's or auditor's group, a superuser, or ``None``:
    staff in no group, who sees nothing), created
    with ``password`` if new (an existing account keeps its password); returns ``(id, created)``. ``cursor``
    must be the owner's: the database refuses the application role."""
    if role is not None and role not in STAFF_ROLES:
        raise ValueError(f"role must be one of {', '.join(STAFF_ROLES)}")
    superuser = role == SUPERUSER
    cursor.execute(
        "INSERT INTO public.auth_user (password, is_superuser, username, first_name, last_name, email, is_staff, "
        "is_active, date_joined) VALUES (%s, %s, %s, '', '', '', true, true, now()) "
        "ON CONFLICT (username) DO UPDATE SET is_staff = true, is_superuser = EXCLUDED.is_superuser "
        "RETURNING id, xmax = 0",
        [make_password(password), superuser, username],
    )
    user_id, created = cursor.fetchone()
    if role is not None and not superuser:
        cursor.execute(
            "INSERT INTO public.auth_user_groups (user_id, group_id) SELECT %s, g.id FROM public.auth_group g "
            "WHERE g.name = %s ON CONFLICT DO NOTHING",
            [user_id, role],
        )
        if cursor.rowcount == 0:
            cursor.execute("SELECT 1 FROM public.auth_user_groups ug JOIN public.auth_group g ON g.id = ug.group_id "
                           "WHERE ug.user_id = %s AND g.name = %s", [user_id, role])  # fmt: skip
            if cursor.fetchone() is None:
                raise LookupError(f"no group {role!r}: run `manage.py migrate` first")
    return int(user_id), bool(created)


def staff_account_as_owner(*, username: str, password: str, role: str | None) -> tuple[int, bool] | None:
    """:func:`staff_account_create` on a connection of the owner role (``MIGRATE_DATABASE_URL``, a one-off
    command's: the default connection is the owner's for the call); ``None`` without an owner URL."""
    with as_owner() as owner:
        if not owner:
            return None
        with transaction.atomic(), connection.cursor() as cursor:
            return staff_account_create(cursor, username=username, password=password, role=role)


def staff_password_set(cursor: Any, *, username: str, password: str) -> int:
    """Set the password of the staff member ``username`` (issue #43: the application role may change no password;
    the admin's "Change password" page answers 403) and write the audit line, on ``cursor``, the owner's. Returns
    the account's id; :class:`LookupError` for no such staff member. The password passes the project's
    validators first (Django's ``ValidationError`` otherwise)."""
    cursor.execute("SELECT id FROM public.auth_user WHERE username = %s AND is_staff", [username])
    row = cursor.fetchone()
    if row is None:
        raise LookupError(f"no staff account {username!r}")
    (user_id,) = row
    validate_password(password, user=get_user_model()(username=username))
    cursor.execute("UPDATE public.auth_user SET password = %s WHERE id = %s", [make_password(password), user_id])
    # the audit line: the account names itself (the owner's command has no staff user of its own)
    cursor.execute(
        "INSERT INTO public.django_admin_log (action_time, user_id, content_type_id, object_id, object_repr, "
        "action_flag, change_message) SELECT now(), %s, ct.id, %s, %s, 2, %s FROM public.django_content_type ct "
        "WHERE ct.app_label = 'auth' AND ct.model = 'user'",
        [user_id, str(user_id), username, "Password set by the owner role (manage.py staff_password)."],
    )
    return int(user_id)


def staff_password_as_owner(*, username: str, password: str) -> int | None:
    """:func:`staff_password_set` on a connection of the owner role; ``None`` without an owner URL."""
    with as_owner() as owner:
        if not owner:
            return None
        with transaction.atomic(), connection.cursor() as cursor:
            return staff_password_set(cursor, username=username, password=password)
