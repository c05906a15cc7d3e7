"""The audit log (Django's ``LogEntry``, read in the admin): who did what, to which object, through which door.

Every cashier action writes one line, whether it came through the admin or the API (issue #26), with the same
wording, so the audit trail of a wallet does not depend on the tool the operator used.
"""

from __future__ import annotations

from django.contrib.admin.models import ADDITION, LogEntry
from django.db.models import Model


def log_action(*, actor_id: int, obj: Model, action_flag: int, message: str) -> LogEntry:
    """Record that user ``actor_id`` did ``message`` to ``obj`` (``ADDITION``, ``CHANGE`` or ``DELETION``)."""
    entry = LogEntry.objects.log_actions(
        user_id=actor_id, queryset=[obj], action_flag=action_flag, change_message=message, single_object=True
    )
    assert isinstance(entry, LogEntry)
    return entry


def log_cashier_entry(
    *, actor_id: int, entry: Model, operation: str, username: str, amount: int, reference: str, balance: int, via: str
) -> str:
    """Log a deposit or a withdrawal (``operation``) posted by ``actor_id`` through ``via`` ("admin", "API");
    returns the message written."""
    message = (
        f"{operation.capitalize()} of {amount} chips, player:{username}, reference {reference!r} "
        f"(transaction {entry.pk}); balance now {balance}"
    )
    log_action(actor_id=actor_id, obj=entry, action_flag=ADDITION, message=f"{message} [{via}]" if via else message)
    return message
