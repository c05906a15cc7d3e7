"""Running a command as the owner role (``MIGRATE_DATABASE_URL``): ``migrate`` and ``staff_account`` only.

:func:`as_owner` points a connection at the owner's credentials for the duration of a block (same server and
database), without a pool, and back afterwards. Without an owner URL it yields ``False`` and changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections


def owner_settings(alias: str = DEFAULT_DB_ALIAS) -> dict[str, object] | None:
    """The owner's credentials for ``alias`` when they differ from the application role's, else ``None``."""
    owner = getattr(settings, "MIGRATE_DATABASE", None) if alias == DEFAULT_DB_ALIAS else None
    if owner is None or owner["USER"] == getattr(settings, "DATABASE_APP_ROLE", ""):
        return None
    return owner


@contextmanager
def as_owner(alias: str = DEFAULT_DB_ALIAS) -> Iterator[bool]:
    """Connection ``alias`` as the owner for the block (``True``), or unchanged (``False``: no owner URL)."""
    owner = owner_settings(alias)
    if owner is None:
        yield False
        return
    connection = connections[alias]
    saved = {key: connection.settings_dict.get(key) for key in owner}
    saved_options = dict(connection.settings_dict.get("OPTIONS") or {})
    connection.close()
    connection.close_pool()
    connection.settings_dict.update(owner)
    connection.settings_dict.setdefault("OPTIONS", {}).pop("pool", None)  # a one-off command: no pool
    try:
        yield True
    finally:
        connection.close()
        connection.settings_dict.update(saved)
        connection.settings_dict["OPTIONS"] = saved_options
