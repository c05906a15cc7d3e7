"""The audit trail of the admin: every operator action is a Django ``LogEntry`` (who, what, on which object)."""

from __future__ import annotations

from django.contrib.admin.models import LogEntry
from django.db.models import Model
from django.http import HttpRequest


def log_action(request: HttpRequest, obj: Model, action_flag: int, message: str) -> LogEntry:
    """Record that the signed-in user did ``message`` to ``obj`` (``ADDITION``, ``CHANGE`` or ``DELETION``)."""
    entry = LogEntry.objects.log_actions(
        user_id=request.user.pk,
        queryset=[obj],
        action_flag=action_flag,
        change_message=message,
        single_object=True,
    )
    assert isinstance(entry, LogEntry)
    return entry
