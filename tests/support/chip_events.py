"""Hand entries in the ledger's own tests, each caused by a stored event that moves exactly its chips.

The database posts a stake reserve or a settlement only as the event its cause names moves chips (issue #43,
``tables/migrations/0017``). The ledger's tests call ``ledger.services`` directly, without a game, so these
wrappers first store the event the entry claims to come from (a ``BetPlaced`` or a ``HandSettled`` carrying
exactly the entry's parties and amounts) and then call the service. A cause in the bridge's form
(``event:<table>:<version>``) names its event's version; any other cause is given one of its own (the same one
on a repeat), so tests of idempotency keep their causes.
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any

from django.db import connection

from ledger import services
from ledger.accounts import user_id_of
from ledger.models import Transaction

_EVENT_CAUSE = re.compile(r"^event:(\d+):(\d+)$")
_FIRST_FREE_VERSION = 1000  # versions given to causes of another form, above any test's explicit ones
_given: dict[tuple[int, str], int] = {}
_next_version = [_FIRST_FREE_VERSION]
_allocating = threading.Lock()  # the concurrency tests post from threads


def _version(table_id: int, cause: str) -> tuple[str, int]:
    """The bridge's cause and version for ``cause``."""
    if (match := _EVENT_CAUSE.match(cause)) and int(match[1]) == table_id and int(match[2]) >= 1:
        return cause, int(match[2])
    with _allocating, connection.cursor() as cursor:
        known = _given.get((table_id, cause))
        if known is not None:
            cursor.execute("SELECT 1 FROM tables_event WHERE stream_id = %s AND version = %s", [table_id, known])
            if cursor.fetchone():
                return f"event:{table_id}:{known}", known
        cursor.execute("SELECT coalesce(max(version), 0) + 1 FROM tables_event WHERE stream_id = %s", [table_id])
        version = max(int(cursor.fetchone()[0]), _next_version[0])
        _next_version[0] = version + 1
        _given[(table_id, cause)] = version
    return f"event:{table_id}:{version}", version


def store_event(table_id: int, version: int, data: dict[str, Any]) -> None:
    """Store ``data`` (with its ``type``) as event ``version`` of table ``table_id`` (the table's row made if
    missing); an event already at that version stays as it is."""
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO tables_table (id, name, preset, created_at, version, phase, bank, min_bet, max_bet, "
            "max_seats, seats_taken, banker_username, hands_played) "
            "VALUES (%s, %s, 'classic', now(), 0, 'waiting', 'player', 0, 0, 0, 0, '', 0) ON CONFLICT (id) DO NOTHING",
            [table_id, f"ledger test {table_id}"],
        )
        cursor.execute(
            "INSERT INTO tables_event (stream_id, version, type, data, metadata, recorded_at, prev_hash, hash) "
            "VALUES (%s, %s, %s, %s::jsonb, '{}'::jsonb, now(), %s, %s) ON CONFLICT (stream_id, version) DO NOTHING",
            [table_id, version, data["type"], json.dumps(data), "0" * 64, f"{table_id:032x}{version:032x}"],
        )


def stake_entry(**entry: Any) -> dict[str, Any]:
    """Store the ``BetPlaced`` that ``ledger.services.reserve_stake(**entry)`` comes from; the entry with its
    event's cause."""
    table_id = entry["table_id"]
    entry["cause"], version = _version(table_id, entry["cause"])
    punter, banker = entry["punter"], entry.get("banker")
    store_event(
        table_id,
        version,
        {
            "type": "BetPlaced",
            "seat": 1,
            "player_id": str(user_id_of(punter)),
            "hand": 0,
            "amount": entry["punter_amount"],
            "stake": entry["punter_amount"],
            "punter_reserve": entry["punter_amount"],
            "banker_reserve": entry["banker_amount"],
            "banker_id": None if banker is None else str(user_id_of(banker)),
        },
    )
    return entry


def settlement_entry(**entry: Any) -> dict[str, Any]:
    """Store the ``HandSettled`` that ``ledger.services.post_settlement(**entry)`` comes from (nothing when the
    entry is malformed: the service refuses it before the database sees it); the entry with its event's cause."""
    table_id = entry["table_id"]
    entry["cause"], version = _version(table_id, entry["cause"])
    try:
        payouts = {("house" if party is None else str(party)): amount for party, amount in entry["payouts"].items()}
        results = [{"player_id": str(row["user_id"]), "net": row["net"]} for row in entry["results"]]
    except (AttributeError, KeyError, TypeError):
        return entry
    store_event(table_id, version, {"type": "HandSettled", "payouts": payouts, "results": results})
    return entry


def reserve_stake(**entry: Any) -> Transaction:
    """``ledger.services.reserve_stake(**entry)`` after storing the ``BetPlaced`` it comes from."""
    return services.reserve_stake(**stake_entry(**entry))


def post_settlement(**entry: Any) -> Transaction:
    """``ledger.services.post_settlement(**entry)`` after storing the ``HandSettled`` it comes from."""
    return services.post_settlement(**settlement_entry(**entry))
