"""The audit trail of the admin: every operator action is a Django ``LogEntry`` (who, what, on which object)."""

from __future__ import annotations

from django.contrib.admin.models import LogEntry
from django.db.models import Model
from django.http import HttpRequest

from kit import audit


def log_action(request: HttpRequest, obj: Model, action_flag: int, message: str) -> LogEntry:
    """Record that the signed-in user did ``message`` to ``obj`` (``ADDITION``, ``CHANGE`` or ``DELETION``)."""
    return audit.log_action(actor_id=request.user.pk, obj=obj, action_flag=action_flag, message=message)
