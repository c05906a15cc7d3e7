"""The house edge of each rule set, computed once by a Celery task and kept (a cache that survives restarts).

One row per simulation key (the resolved rules, the bank and the default strategies, see
``lab.services.table_spec``): every table with the same rule set shares it.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

COMPUTING = "computing"
DONE = "done"
FAILED = "failed"


class HouseEdge(models.Model):
    """The bank's edge of one rule set under the default strategies, with its 95% interval."""

    key = models.CharField(max_length=64, unique=True)  # sha256 of the simulation spec (lab.services.spec_key)
    preset = models.CharField(max_length=20)
    bank = models.CharField(max_length=10)
    rules = models.JSONField()  # every resolved toggle
    spec = models.JSONField()  # what lab.sim.Spec ran
    status = models.CharField(
        max_length=10, default=COMPUTING, choices=[(COMPUTING, COMPUTING), (DONE, DONE), (FAILED, FAILED)]
    )
    edge = models.FloatField(null=True, blank=True)
    half_width = models.FloatField(null=True, blank=True)
    rounds = models.PositiveIntegerField(default=0)
    result = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True, default="")
    requested_at = models.DateTimeField()
    computed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["preset", "bank", "id"]
        verbose_name = "house edge"
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=[COMPUTING, DONE, FAILED]), name="lab_houseedge_status_known"
            ),
            models.CheckConstraint(
                condition=~Q(status=DONE)
                | Q(
                    edge__isnull=False,
                    half_width__isnull=False,
                    half_width__gte=0,
                    rounds__gt=0,
                    computed_at__isnull=False,
                ),
                name="lab_houseedge_done_has_figure",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.preset}, {self.bank} bank: {self.status}"
