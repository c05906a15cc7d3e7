"""Sealed stored states: the tables' snapshots and the hands' cached starting states.

A snapshot (``tables_snapshot``, written whenever a command opens, settles or abandons a hand) lets a load fold
only the events of the current hand; a hand's cached starting state (``tables_hand.start_state``) lets
verification start at the hand. Both are disposable caches: one that is missing, unreadable, sealed for another
row or written by another version of the rules core (:data:`SNAPSHOT_SCHEMA`) is logged, ignored and rebuilt from
the events. Each is the rules codec's plain JSON (``rules.state_to_json``), decoded and type-checked field by
field, so no stored row can run code, and sealed (:func:`state_to_db`), so nobody reading the database sees the
face-down cards of a hand in play and no one writing it can plant a state that a load would trust. The sealed
text's length tells nothing either: the plain JSON is padded so that its length depends only on what every
viewer may see (:func:`padding_for`).
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any

from django.db import connection

import rules
from gamemath.cards import CANONICAL_DECK
from gamemath.enums import Category
from rules import TableState
from tables import fairness
from tables.store import Write


def _schema_fingerprint() -> str:
    """Changes whenever any module of the rules core changes, so an old snapshot is never trusted."""
    digest = hashlib.sha256()
    for path in sorted(Path(rules.__file__).parent.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:32]


SNAPSHOT_SCHEMA = _schema_fingerprint()

log = logging.getLogger(__name__)

_CARD_CODES = frozenset(CANONICAL_DECK)
_CARD_WIDTH = max(len(code) for code in CANONICAL_DECK)  # "12O": a picture is one character longer than a pip
_CATEGORY_WIDTH = max(len(category.value) for category in Category)
_TOTAL_WIDTH = 3  # a hand's total in half points ("total_hp", "matta_hp"): a bust hand stays under 100
_TOTALS = frozenset({"total_hp", "matta_hp"})


def padding_for(data: Any) -> int:
    """How many spaces to append to a state's JSON so its length no longer tells what its hidden fields hold.

    A face-down card's code (2 or 3 characters), a hidden hand's total and its category are the only values of a
    state whose width depends on what nobody may see; each is counted at its widest, so two states that differ
    only in them seal to texts of one length (tests/tables/store/test_snapshot_rows.py)."""
    if isinstance(data, dict):
        slack = 0
        for key, value in data.items():
            if key in _TOTALS and isinstance(value, int):
                slack += _TOTAL_WIDTH - len(str(value))
            elif key == "category" and isinstance(value, str):
                slack += _CATEGORY_WIDTH - len(value)
            else:
                slack += padding_for(value)
        return slack
    if isinstance(data, list):
        return sum(padding_for(item) for item in data)
    if isinstance(data, str) and data in _CARD_CODES:
        return _CARD_WIDTH - len(data)
    return 0


def snapshot_binding(table_id: int, version: int) -> str:
    """What a table's snapshot at ``version`` is sealed to (see :func:`state_to_db`)."""
    return f"snapshot:{table_id}:{version}:{SNAPSHOT_SCHEMA}"


def hand_start_binding(table_id: int, start_version: int) -> str:
    """What the cached starting state of a hand (of ``table_id``, from ``start_version``) is sealed to."""
    return f"hand-start:{table_id}:{start_version}:{SNAPSHOT_SCHEMA}"


def state_to_db(state: TableState, *, binding: str) -> str:
    """The stored (JSON) form of a state (snapshots, cached starting states of hands): ``{"sealed": ...}``, the
    rules codec's JSON encrypted with AES-256-GCM under the current seed-sealing key (held outside the database),
    ``binding`` (which row it is for) as associated data.

    Encrypted, because a state holds the face-down cards of a hand in play (nobody reading the database may see
    them); authenticated, because the application's role may write these caches, so without the seal its
    credentials could plant a state (a deck of its choosing) that the next load would trust. A row is believed
    only if sealed by this server for exactly this table, version and rules core.
    """
    plain = rules.state_to_json(state)
    data = json.dumps(plain, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + " " * padding_for(plain)
    return json.dumps({"sealed": fairness.seal_blob(binding, data.encode())}, separators=(",", ":"))


def state_json_from_db(stored: Any, *, binding: str) -> Any:
    """The rules codec's JSON a snapshot-like row seals; raises ValueError if it is not such a row and
    ``fairness.NotSealedHere`` if it was not sealed by this server for ``binding``."""
    row = json.loads(stored) if isinstance(stored, (str, bytes, bytearray)) else stored
    if not isinstance(row, dict) or set(row) != {"sealed"} or not isinstance(row["sealed"], str):
        raise ValueError("not a sealed state")
    return json.loads(fairness.open_blob(binding, row["sealed"]))


def state_from_db(stored: Any, *, binding: str, version: int | None, what: str) -> TableState | None:
    """The state a snapshot-like row holds, or None (logged) when it does not decode to a state at ``version``
    sealed for ``binding``.

    The row is data only: decoding checks every field's type and builds nothing but rules values.
    """
    try:
        data = state_json_from_db(stored, binding=binding)
    except fairness.NotSealedHere:
        log.warning("%s is not sealed by this server for %s: ignored, rebuilt from the events", what, binding)
        return None
    except (ValueError, TypeError) as exc:
        log.warning("%s does not decode (%s): ignored, rebuilt from the events", what, exc)
        return None
    try:
        state = rules.state_from_json(data)
    except (ValueError, TypeError, rules.InvalidRequest) as exc:
        log.warning("%s does not decode (%s): ignored, rebuilt from the events", what, exc)
        return None
    if version is not None and state.version != version:
        log.warning("%s holds version %s, not %s: ignored, rebuilt from the events", what, state.version, version)
        return None
    return state


def snapshot_write(table_id: int, state: TableState, last_hash: str) -> Write:
    """The statement storing ``state`` (at a hand boundary) as the table's snapshot (see :func:`save_snapshot`)."""
    return (
        "INSERT INTO tables_snapshot (table_id, version, schema, state, last_hash, updated_at) "
        "VALUES (%s, %s, %s, %s::jsonb, %s, now()) "
        "ON CONFLICT (table_id) DO UPDATE SET version = EXCLUDED.version, schema = EXCLUDED.schema, "
        "state = EXCLUDED.state, last_hash = EXCLUDED.last_hash, updated_at = now() "
        "WHERE tables_snapshot.version < EXCLUDED.version OR tables_snapshot.schema <> EXCLUDED.schema",
        [
            table_id,
            state.version,
            SNAPSHOT_SCHEMA,
            state_to_db(state, binding=snapshot_binding(table_id, state.version)),
            last_hash,
        ],
    )


def save_snapshot(table_id: int, state: TableState, last_hash: str) -> None:
    """Store ``state`` (at a hand boundary) as the table's snapshot, in the caller's transaction."""
    sql, params = snapshot_write(table_id, state, last_hash)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
