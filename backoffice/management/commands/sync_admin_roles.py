"""``manage.py sync_admin_roles``: give the "auditor" and "operator" groups exactly their permissions.

Groups and permissions are the owner's to write (issue #43: the application role may only read them), so the
command runs as the owner role (``MIGRATE_DATABASE_URL``, as ``migrate`` does); without an owner URL, on the
connection as configured (one role for everything)."""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.core.management.base import BaseCommand

from backoffice.owner import as_owner
from tables.admin.roles import role_permissions, sync_roles


class Command(BaseCommand):
    help = (
        "Create the admin's auditor and operator groups if needed and set their permissions (tables/admin/roles.py), "
        "as the owner role."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        with as_owner():
            sync_roles(apps)
        for group, permissions in role_permissions().items():
            self.stdout.write(f"{group}: {', '.join(sorted(codename for _, _, codename in permissions))}")
