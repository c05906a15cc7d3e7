"""The checkpoint signer: it signs only what it has replayed (issue #25, API.md v1.2 "Signed checkpoints").

With ``CHECKPOINT_SIGNER = "signer"`` no command signs anything: a command that ends a hand asks the signer
(a Celery task on its own queue, ``CHECKPOINT_SIGNER_QUEUE``, served by a worker of its own that connects as its
own database role, the only one that may insert checkpoints, and holds the only signing key). For a table,
:func:`sign_table`:

1. finds every hand closed since the table's latest checkpoint;
2. verifies each (``tables.verify.verify_hand``: the recorded commands replayed through the rules core, the
   revealed seed against its commitment and the dealt cards against the shuffle, the ledger against the results,
   every chain hash recomputed from the event's content);
3. checks the chain from the latest checkpoint to the version it will sign;
4. signs ``f"{table}:{version}:{hash}"`` at the end of the last hand (its closing event and what the end itself
   brings, ``checkpoint_signing.END_OF_HAND``: leavers, the bank passing on, the next commitment; what the same
   command dealt next the next checkpoint covers), or refuses: nothing is signed, and a ``VerificationFailure``
   (source ``signer``) is recorded, which the admin's dashboard and ``/metrics`` show. A refused table stays
   unsigned until an operator has looked: every later attempt replays the same hands and refuses again, but
   alerts once per table and cause (:func:`alert_once`: the hand, or the chain between hands, and the names of
   the failing checks), not at every attempt (the periodic task tries every 10 s).

Two signers never sign one table at once (a transaction-level advisory lock per table).

With ``CHECKPOINT_SIGNER = "inline"`` (the test suite's default) the process that ran the command signs the hand's
end itself, with no replay, but the application's role still writes no checkpoint: once the command has committed,
:func:`write_inline` inserts it through a connection of its own as the signer's role (``SIGNER_DATABASE_URL``'s
credentials, on the database the process uses). Only a database with no signer role (one role for everything)
has the application write its checkpoints itself.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import unquote, urlsplit

import psycopg
from django.conf import settings
from django.db import connection, transaction
from django.db.models import Max
from django.utils import timezone
from psycopg.types.json import Jsonb

from rules import TableState, evolve
from tables import checkpoint_signing, loader
from tables.hand_events import load_hand
from tables.models import Checkpoint, Hand
from tables.signals import report_verification_failure
from tables.store import chain_problems, load_stream
from tables.verify import verify_hand

#: the checks a hand must pass before its end is signed (not "checkpoint": that one reads the signer's own rows)
SIGNED_CHECKS = ("commitment", "shuffle", "replay", "ledger", "chain")
#: what may follow the closing event in the command that closed a hand and still belongs to its end
_END_OF_HAND = checkpoint_signing.END_OF_HAND
_LOCK = "casino.signer:"
_INSERT = (
    "INSERT INTO tables_checkpoint (table_id, version, hash, key_id, signature, at, hash_forms, facts_sha256, "
    "signed_facts) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING"
)
log = logging.getLogger(__name__)
#: the connection options of the process's own database that the signer's connection keeps (libpq's: which host of
#: a multi-host URL to take, timeouts, TLS)
_LIBPQ_OPTIONS = frozenset(
    {"target_session_attrs", "connect_timeout", "keepalives", "keepalives_idle", "keepalives_interval",
     "keepalives_count", "tcp_user_timeout", "sslmode", "sslrootcert"}
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Signing:
    """What :func:`sign_table` did: ``signed`` the version it signed (None: nothing, or refused)."""

    table_id: int
    signed: int | None = None
    hands: list[int] = field(default_factory=list)  # ids of the hands replayed
    refused: dict[int, dict[str, str]] = field(default_factory=dict)  # hand id (0: the chain) -> failing checks


def pending_tables() -> list[int]:
    """Tables with a hand closed after their latest checkpoint."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT h.table_id FROM tables_hand h "
            "LEFT JOIN (SELECT table_id, max(version) AS version FROM tables_checkpoint GROUP BY table_id) c "
            "ON c.table_id = h.table_id "
            "WHERE h.closed_version IS NOT NULL AND h.closed_version > coalesce(c.version, 0) "
            "GROUP BY h.table_id ORDER BY h.table_id"
        )
        return [row[0] for row in cursor.fetchall()]


def _end_of(table_id: int, closed: int) -> tuple[int, str] | None:
    """(version, hash) of the end of the hand closed at ``closed``: the closing event and what follows it in the same
    command and belongs to its end (``checkpoint_signing.END_OF_HAND``)."""
    events = load_stream(table_id, after_version=closed - 1, upto_version=closed + 64)
    if not events or events[0].version != closed:
        return None
    batch = events[0].metadata.get("command_version") or closed
    last = events[0]
    for event in events[1:]:
        if event.type not in _END_OF_HAND or (event.metadata.get("command_version") or event.version) != batch:
            break
        last = event
    return last.version, last.hash


def sign_table(table_id: int) -> Signing:
    """Replay every hand closed since the table's latest checkpoint; sign the end of the last one, or refuse and
    record why (module docstring)."""
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"{_LOCK}{table_id}"])
        latest = Checkpoint.objects.filter(table_id=table_id).aggregate(v=Max("version"))["v"] or 0
        hands = list(
            Hand.objects.filter(table_id=table_id, closed_version__gt=latest)
            .exclude(status="in_play")
            .order_by("number")
        )
        if not hands:
            return Signing(table_id)
        refused: dict[int, dict[str, str]] = {}
        for hand in hands:
            report = verify_hand(hand, record=False, source="signer", alert=False)
            failing = {name: report[name] for name in SIGNED_CHECKS if report.get(name, "ok") != "ok"}
            if failing:
                refused[hand.pk] = failing
            alert_once(table_id, hand, report.failing())
        end = _end_of(table_id, max(h.closed_version or 0 for h in hands))
        if end is None:
            refused[0] = {"chain": "the closing event of the last hand is missing"}
        else:
            stretch = load_stream(table_id, after_version=max(latest - 1, 0), upto_version=end[0])
            problems = chain_problems(stretch[1:], prev_hash=stretch[0].hash) if latest > 1 else chain_problems(stretch)
            if problems:
                refused[0] = {"chain": "; ".join(problems[:5])}
                alert_once(table_id, None, refused[0])
        ids = [h.pk for h in hands]
        if refused or end is None:
            return Signing(table_id, hands=ids, refused=refused)
        version, chain_hash = end
        signed = checkpoint_signing.sign_checkpoint(table_id, version, chain_hash, _state_at(hands[-1], version))
        with connection.cursor() as cursor:
            cursor.execute(_INSERT, _row(signed, timezone.now()))
        return Signing(table_id, signed=version, hands=ids)


def alert_once(table_id: int, hand: Hand | None, failing: dict[str, str]) -> bool:
    """Report a refusal (``VerificationFailure``, source ``signer``) unless the signer already reported this cause:
    the same table, the same hand (``None``: the chain between hands) and the same failing checks. Whether it
    reported. Runs under the table's signing lock, so two signers never both report one cause."""
    if not failing:
        return False
    hand_id = hand.pk if hand is not None else None
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT checks FROM casino_verificationfailure "
            "WHERE source = 'signer' AND table_id = %s AND hand_id IS NOT DISTINCT FROM %s",
            [table_id, hand_id],
        )
        known = [set(row[0] if isinstance(row[0], dict) else json.loads(row[0])) for row in cursor.fetchall()]
    if set(failing) in known:
        log.info("signer: table %s still refused (%s), alerted already", table_id, ", ".join(sorted(failing)))
        return False
    report_verification_failure(
        table_id=table_id,
        hand_id=hand_id,
        hand_number=hand.number if hand is not None else None,
        checks=failing,
        source="signer",
    )
    return True


def _state_at(hand: Hand, version: int) -> TableState:
    """The table at ``version``, the end of ``hand`` (replayed by verify just before): what the checkpoint's
    facts are read from."""
    loaded = load_hand(hand)
    state = loaded.start_state
    for stored in loaded.events:
        if stored.version > version:
            break
        state = evolve(state, loader.decode(stored))
    return state


def _row(signed: checkpoint_signing.Signed, at: datetime) -> list[Any]:
    """The parameters of :data:`_INSERT` for ``signed``."""
    return [
        signed.table_id,
        signed.version,
        signed.hash,
        signed.key_id,
        signed.signature,
        at,
        signed.hash_forms,
        signed.facts_sha256,
        Jsonb(signed.facts),
    ]


def signer_connection_params() -> dict[str, Any] | None:
    """psycopg keywords for the signer's role (``SIGNER_DATABASE_URL``'s user and password) on the database this
    process uses (its hosts, ports, name and libpq options: a test database, a failover pair too); None when no
    signer role is configured."""
    url = getattr(settings, "SIGNER_DATABASE_URL", "")
    if not url:
        return None
    parts = urlsplit(url)
    own = connection.settings_dict
    options = {key: value for key, value in (own.get("OPTIONS") or {}).items() if key in _LIBPQ_OPTIONS}
    params = {
        "connect_timeout": 5,
        **options,
        "dbname": own["NAME"],
        "user": unquote(parts.username or ""),
        "password": unquote(parts.password or ""),
        "host": own.get("HOST"),
        "port": own.get("PORT"),
    }
    return {key: value for key, value in params.items() if value not in (None, "")}


def write_inline(table_id: int, version: int, chain_hash: str, at: datetime, state: TableState) -> None:
    """``CHECKPOINT_SIGNER = "inline"``, after the command that ended a hand committed: sign the end of the hand
    (``version``, ``chain_hash``; the table being ``state`` there) with this process's key and insert the checkpoint
    as the signer's role. Never raises: a checkpoint lost here (logged) is covered by the table's next one."""
    try:
        row = _row(checkpoint_signing.sign_checkpoint(table_id, version, chain_hash, state), at)
        params = signer_connection_params()
        if params is None:  # one role for everything: it writes its own checkpoints
            with connection.cursor() as cursor:
                cursor.execute(_INSERT, row)
            return
        with psycopg.connect(**params, autocommit=True) as signer:
            signer.execute(_INSERT, row)
    except Exception:
        log.exception("table %s: could not write the checkpoint of version %s", table_id, version)
