"""``manage.py sync_admin_roles``: give the "auditor" and "operator" groups exactly their permissions."""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.core.management.base import BaseCommand

from tables.admin.roles import role_permissions, sync_roles


class Command(BaseCommand):
    help = "Create the admin's auditor and operator groups if needed and set their permissions (tables/admin/roles.py)."

    def handle(self, *args: Any, **options: Any) -> None:
        sync_roles(apps)
        for group, permissions in role_permissions().items():
            self.stdout.write(f"{group}: {', '.join(sorted(codename for _, _, codename in permissions))}")
