"""The admin's two staff roles, as Django groups.

- ``auditor``: reads everything (every admin page of the game, the ledger, the players and the audit log) and
  changes nothing. Verifying a hand is a read: it records only the outcome (``Hand.verified_at/verified_ok``,
  a cache of a derived fact) and an audit log line.
- ``operator``: everything an auditor reads, plus creating and renaming tables, resolving disputes (with a
  compensating ledger entry when chips are owed) and the cashier (deposits and withdrawals).

Nobody, superusers included, can add, change or delete events, transactions or postings in the admin: those
admin classes refuse it whatever the permissions say.

:func:`sync_roles` makes the groups hold exactly these permissions. It is run by the data migration
``casino.0002_admin_roles`` (with the historical app registry) and by ``manage.py sync_admin_roles`` after a
change here; it creates missing content types and permissions itself, so it works inside ``migrate`` before
Django's ``post_migrate`` handler has created them.
"""

from __future__ import annotations

from typing import Any

AUDITOR = "auditor"
OPERATOR = "operator"

#: Every model whose admin pages an auditor may read: (app label, model name).
READABLE: tuple[tuple[str, str], ...] = (
    ("tables", "table"),
    ("tables", "hand"),
    ("tables", "handparticipant"),
    ("tables", "event"),
    ("tables", "dispute"),
    ("tables", "tableseat"),
    ("lab", "houseedge"),
    ("certify", "auditrun"),  # stored game-output audits (certify/admin.py)
    ("ledger", "account"),
    ("ledger", "transaction"),
    ("ledger", "posting"),
    ("casino", "player"),
    ("admin", "logentry"),
    ("auth", "user"),
    ("auth", "group"),
    ("axes", "accessattempt"),  # failed sign-ins and lockouts (accounts/login_lockout.py)
    ("axes", "accesslog"),  # sign-ins
    ("responsible", "gamingaccount"),  # players' limits, requests, exclusions and their history
)

#: What an operator may do beyond reading: (app label, model name, permission codename).
OPERATOR_ACTIONS: tuple[tuple[str, str, str], ...] = (
    ("tables", "table", "add_table"),  # create a table (through tables.services.table_create)
    ("tables", "table", "change_table"),  # rename it: nothing else of a table can change
    ("tables", "dispute", "change_dispute"),  # resolve a dispute, with a compensating entry if chips are owed
    ("casino", "player", "use_cashier"),  # deposits and withdrawals through ledger.services
    ("axes", "accessattempt", "delete_accessattempt"),  # unlock a locked sign-in
    ("responsible", "gamingaccount", "lower_limits"),  # lower a player's limit, with a reason (never raise)
)

#: Names of custom permissions (the default ones are "Can <action> <verbose name>").
_CUSTOM_NAMES = {
    "use_cashier": "Can deposit and withdraw chips at the cage",
    "lower_limits": "Can lower a player's responsible-gaming limits",
}


def role_permissions() -> dict[str, list[tuple[str, str, str]]]:
    """Each group's permissions as (app label, model name, codename)."""
    read = [(app, model, f"view_{model}") for app, model in READABLE]
    return {AUDITOR: read, OPERATOR: read + list(OPERATOR_ACTIONS)}


def _permission_name(apps: Any, app_label: str, model: str, codename: str) -> str:
    if codename in _CUSTOM_NAMES:
        return _CUSTOM_NAMES[codename]
    action = codename.split("_", 1)[0]
    try:
        verbose = apps.get_model(app_label, model)._meta.verbose_name
    except LookupError:
        verbose = model
    return f"Can {action} {verbose}"[:255]


def sync_roles(apps: Any) -> None:
    """Create the groups if needed and give each exactly the permissions of :func:`role_permissions`.

    ``apps`` is an app registry: the migration's historical one, or ``django.apps.apps``.
    """
    group_model = apps.get_model("auth", "Group")
    permission_model = apps.get_model("auth", "Permission")
    content_type_model = apps.get_model("contenttypes", "ContentType")
    for group_name, wanted in role_permissions().items():
        group, _ = group_model.objects.get_or_create(name=group_name)
        permissions = []
        for app_label, model, codename in wanted:
            content_type, _ = content_type_model.objects.get_or_create(app_label=app_label, model=model)
            permission, _ = permission_model.objects.get_or_create(
                content_type=content_type,
                codename=codename,
                defaults={"name": _permission_name(apps, app_label, model, codename)},
            )
            permissions.append(permission)
        group.permissions.set(permissions)


def remove_roles(apps: Any) -> None:
    """Delete the two groups (the reverse of the data migration)."""
    apps.get_model("auth", "Group").objects.filter(name__in=[AUDITOR, OPERATOR]).delete()
