"""Stored audits: what the admin's page lists, the metric reads and the monthly report was written from."""

from __future__ import annotations

from django.db import models


class AuditRun(models.Model):
    """One game-output audit of a period (docs/certification.md): its report as data and which tables it flagged."""

    started_at = models.DateTimeField(auto_now_add=True)
    period_start = models.DateTimeField()
    period_end = models.DateTimeField()
    tables = models.JSONField(default=list)  # the table ids asked for; empty: every table
    hands = models.BigIntegerField(default=0)
    flagged_tables = models.JSONField(default=list)
    report = models.JSONField(default=dict)
    seconds = models.FloatField(default=0)

    class Meta:
        ordering = ["-started_at", "-id"]
        verbose_name = "game-output audit"

    def __str__(self) -> str:
        return f"audit {self.period_start:%Y-%m-%d} to {self.period_end:%Y-%m-%d}"
