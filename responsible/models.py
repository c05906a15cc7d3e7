"""The responsible-gaming records: one account row per player (the lock every stake, deposit and seat of his
takes, and the cached state of his stream) and his own account stream of events (API.md v1.2).

The stream is append-only like the tables' (unique ``(user, version)``), and each event carries the state it
leads to: what every decision reads. The account row's ``state`` and ``version`` are copies for the admin's lists
and the sweep, never read for a decision (responsible/store.py).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q


class GamingAccount(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, primary_key=True, related_name="gaming_account"
    )
    # Copies of the stream's state for the admin's lists and the sweep (never read for a decision)
    state = models.JSONField(default=dict)  # responsible.account.state_to_json
    version = models.PositiveIntegerField(default=0)
    excluded_until = models.DateTimeField(null=True, blank=True, db_index=True)
    has_limits = models.BooleanField(default=False)

    class Meta:
        verbose_name = "responsible-gaming account"
        default_permissions = ("view",)
        permissions = [("lower_limits", "Can lower a player's responsible-gaming limits")]

    def __str__(self) -> str:
        return f"responsible gaming of user {self.user_id}"


class AccountEvent(models.Model):
    """One change of a player's responsible-gaming account (limit set, raise requested/confirmed/lapsed, reality
    check shown/acknowledged, session, break or exclusion started/ended)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="gaming_events")
    version = models.PositiveIntegerField()
    type = models.CharField(max_length=40)
    at_ms = models.BigIntegerField()
    data = models.JSONField(default=dict)
    # who caused it: the player, a staff member (``reason`` required), or the server (None)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    reason = models.TextField(blank=True, default="")
    recorded_at = models.DateTimeField(auto_now_add=True)
    # the account's state after this event (responsible.account.state_to_json): what every decision reads
    # (responsible/store.py); null on rows written before events carried it
    state = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["user", "version"]
        constraints = [
            models.UniqueConstraint(fields=["user", "version"], name="responsible_event_stream_version"),
            models.CheckConstraint(condition=Q(version__gte=1), name="responsible_event_version_positive"),
            # a change made by someone else than the player (staff) always says why
            models.CheckConstraint(
                condition=Q(actor__isnull=True) | Q(actor=F("user")) | ~Q(reason=""),
                name="responsible_event_staff_reason",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.type} (user {self.user_id} v{self.version})"
