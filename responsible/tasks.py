"""The responsible-gaming sweep on beat: thin (one service call)."""

from __future__ import annotations

from celery import shared_task

from responsible.services import sweep


@shared_task(name="responsible.sweep", ignore_result=True)
def responsible_sweep() -> dict[str, int]:
    """Lapse expired raise requests, end finished exclusions, release the seats of players whose session limit
    is used up or who are excluded (after the hand in play)."""
    return sweep()
