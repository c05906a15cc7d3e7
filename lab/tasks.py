"""Celery task of the lab: compute one rule set's house edge (thin: the key in, one service call)."""

from __future__ import annotations

from celery import shared_task

from lab.services import COMPUTE_HOUSE_EDGE, compute


@shared_task(name=COMPUTE_HOUSE_EDGE, acks_late=True, ignore_result=True)
def compute_house_edge(key: str) -> None:
    """Simulate the rule set of ``key`` and store its edge (a no-op when already done)."""
    compute(key)
