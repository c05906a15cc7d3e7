"""Who may use the operators' endpoints.

API.md calls staff users operators. The admin adds a read-only staff role, the auditor (docs/admin.md), who must
be staff to sign in there: so an operator's endpoint asks for staff *and* the operator's permission for it
(superusers have every permission). An auditor gets 403 from the cashier and from table creation.
"""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import IsAdminUser
from rest_framework.request import Request


class StaffWith(IsAdminUser):
    """Staff holding ``perm`` (an IsAdminUser, so the schema documents 401/403 for it)."""

    perm: str = ""

    def has_permission(self, request: Request, view: Any) -> bool:
        return super().has_permission(request, view) and request.user.has_perm(self.perm)

    @classmethod
    def of(cls, perm: str) -> type[StaffWith]:
        return type(f"StaffWith_{perm.replace('.', '_')}", (cls,), {"perm": perm})


CanUseCashier = StaffWith.of("casino.use_cashier")
CanCreateTables = StaffWith.of("tables.add_table")
