"""What the game announces to whoever keeps records of it, without importing them (Django signals).

``verification_failed``: a verification found a difference (a hand, or a table's hash chain between hands), sent
with ``table_id``, ``hand_id`` (None: the chain), ``hand_number``, ``checks`` (the failing checks only: {check:
what differs}) and ``source`` (``admin``, ``verify_hand``, ``verify_hands``, ``api``, ``signer``). The back office
keeps each one for the dashboard and ``/metrics`` (backoffice/monitoring.py connects to it).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from django.dispatch import Signal

log = logging.getLogger("casino.monitoring")

verification_failed = Signal()


def report_verification_failure(
    *, table_id: int, hand_id: int | None, hand_number: int | None, checks: Mapping[str, str], source: str
) -> None:
    """Log a failed verification (only its failing checks) and announce it; nothing when every check is ok."""
    failing = {name: text for name, text in checks.items() if text != "ok"}
    if not failing:
        return
    what = f"hand {hand_id} (table {table_id} #{hand_number})" if hand_id is not None else f"table {table_id} chain"
    log.error("verification failed: %s: %s (%s)", what, ", ".join(failing), source)
    verification_failed.send(
        sender=None, table_id=table_id, hand_id=hand_id, hand_number=hand_number, checks=failing, source=source
    )
