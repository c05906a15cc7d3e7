"""When each checkpoint-signing key was put in service: its ``valid_from`` (API.md v1.3, never null).

A key is in service from the first moment the casino published it or signed a checkpoint with it, whichever came
first: the checkpoint's trigger records the second (migration tables/0015), and :func:`in_service` the first. (A
retired key is listed as long as the configuration names it, so that what it signed stays verifiable; one that
predates these records and never signed a stored checkpoint is recorded at its first publication.)
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import connection
from django.utils import timezone

from tables import checkpoint_signing
from tables.models import KeyInService

_RECORD = "INSERT INTO tables_keyinservice (key_id, valid_from) VALUES (%s, %s) ON CONFLICT (key_id) DO NOTHING"


@dataclass(frozen=True, slots=True)
class KeyInForce:
    """A published key with the moment it was put in service."""

    key: checkpoint_signing.PublicKey
    valid_from: datetime


def in_service() -> list[KeyInForce]:
    """Every published key with the moment it was put in service, the current one first (a key published for the
    first time is recorded as in service from now)."""
    keys = checkpoint_signing.published_keys()
    recorded = _recorded(keys)
    unrecorded = [key for key in keys if not any(name in recorded for name in key.aliases)]
    if unrecorded:
        now = timezone.now()
        with connection.cursor() as cursor:
            for key in unrecorded:
                cursor.execute(_RECORD, [key.key_id, now])
        recorded = _recorded(keys)  # another process may have recorded one first: its moment stands
    return [KeyInForce(key, min(recorded[name] for name in key.aliases if name in recorded)) for key in keys]


def _recorded(keys: list[checkpoint_signing.PublicKey]) -> dict[str, datetime]:
    names = {name for key in keys for name in key.aliases}
    return dict(KeyInService.objects.filter(key_id__in=names).values_list("key_id", "valid_from"))
