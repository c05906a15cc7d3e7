"""Reading, locking and appending to players' responsible-gaming accounts, in the caller's transaction.

Every decision reads the state the account stream itself carries: each event row holds the state it leads to
(``responsible_accountevent.state``, append-only like the rest of the row), and the account is the latest row's
state (an older row without one is replayed from the stream). The account row (``responsible_gamingaccount``) is
the lock every stake, deposit and seat takes, and keeps copies for the admin's lists and the sweep's candidates:
the application role may edit it, and an edit changes no decision (issue #43: an exclusion erased there is still
an exclusion).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.db import connection

from .account import AccountEvent, AccountState, evolve, replay, state_from_json, state_to_json
from .models import AccountEvent as EventRow
from .models import GamingAccount


@dataclass(slots=True)
class Loaded:
    user_id: int
    state: AccountState
    version: int


def lock_accounts(user_ids: Iterable[int], *, create: bool = False) -> dict[int, Loaded]:
    """The accounts of ``user_ids``, locked (``FOR UPDATE``, in user id order: no deadlock between two
    commands) until the caller's transaction ends. ``create`` first makes the missing ones."""
    ids = sorted(set(user_ids))
    if not ids:
        return {}
    with connection.cursor() as cursor:
        if create:
            cursor.execute(
                "INSERT INTO responsible_gamingaccount (user_id, state, version, has_limits) "
                "SELECT unnest(%s::bigint[]), '{}'::jsonb, 0, false ON CONFLICT (user_id) DO NOTHING",
                [ids],
            )
        cursor.execute(
            "SELECT user_id FROM responsible_gamingaccount WHERE user_id = ANY(%s) ORDER BY user_id FOR UPDATE",
            [ids],
        )
        locked = [int(uid) for (uid,) in cursor.fetchall()]
    states = _stream_states(locked)
    return {uid: Loaded(uid, *states[uid]) for uid in locked}


def _stream_states(user_ids: list[int]) -> dict[int, tuple[AccountState, int]]:
    """``(state, version)`` of each player's account from his stream: the state its latest event carries (replayed
    from the stream for a row written before events carried it). One statement."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT ON (user_id) user_id, version, state FROM responsible_accountevent "
            "WHERE user_id = ANY(%s) ORDER BY user_id, version DESC",
            [user_ids],
        )
        last = {int(uid): (int(version), carried) for uid, version, carried in cursor.fetchall()}
    out: dict[int, tuple[AccountState, int]] = {}
    for uid in user_ids:
        version, carried = last.get(uid, (0, {}))
        state = replay(stream(uid)) if carried is None else state_from_json(json_data(carried))
        out[uid] = (state, version)
    return out


def lock_account(user_id: int) -> Loaded:
    """One player's account, created if missing, locked until the transaction ends."""
    return lock_accounts([user_id], create=True)[user_id]


def read_account(user_id: int) -> AccountState:
    """A player's account state, unlocked (reads, views)."""
    return _stream_states([user_id])[user_id][0]


def append(
    loaded: Loaded, events: Sequence[AccountEvent], *, actor_id: int | None = None, reason: str = ""
) -> AccountState:
    """Append ``events`` to the player's stream and store the state they lead to (the account must be locked)."""
    if not events:
        return loaded.state
    state = loaded.state
    rows = []
    for event in events:
        state = evolve(state, event)
        loaded.version += 1
        rows.append(
            EventRow(
                user_id=loaded.user_id,
                version=loaded.version,
                type=event.type,
                at_ms=event.at_ms,
                data=dict(event.data),
                state=state_to_json(state),
                actor_id=actor_id,
                reason=reason,
            )
        )
    EventRow.objects.bulk_create(rows)
    loaded.state = state
    until = state.excluded_until_ms
    GamingAccount.objects.filter(user_id=loaded.user_id).update(
        state=state_to_json(state),
        version=loaded.version,
        excluded_until=None if until is None else datetime.fromtimestamp(until / 1000, tz=UTC),
        has_limits=bool(state.limits),
    )
    return state


def stream(user_id: int) -> list[AccountEvent]:
    """The player's whole account stream, oldest first."""
    return [
        AccountEvent(type=t, at_ms=at, data=d)
        for t, at, d in EventRow.objects.filter(user_id=user_id)
        .order_by("version")
        .values_list("type", "at_ms", "data")
    ]


def _ms(at: datetime) -> int:
    return int(at.timestamp() * 1000)


def loss_facts(user_id: int, *, since: datetime, now_ms: int) -> tuple[list[tuple[int, int]], int]:
    """``(settled, at_risk)`` of a player: his net ``(at_ms, net)`` in each hand settled since ``since``, and
    the chips he has reserved in hands still in play, at every table. One statement.

    A hand settled "after" ``now_ms`` counts at ``now_ms`` (issue #43): another table's command, whose clock read
    later, settled it before this one read; it is no longer at risk, and counted nowhere it would be forgotten
    (a loss used 20 of a limit of 10)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT h.settled_at, p.net, NULL FROM tables_handparticipant p JOIN tables_hand h ON h.id = p.hand_id "
            "WHERE p.user_id = %s AND h.status = 'settled' AND h.settled_at > %s AND p.net IS NOT NULL "
            "UNION ALL "
            "SELECT NULL, NULL, COALESCE(-SUM(lp.amount), 0) FROM ledger_posting lp "
            "JOIN ledger_transaction t ON t.id = lp.transaction_id "
            "JOIN ledger_account a ON a.id = lp.account_id AND a.user_id = %s "
            "WHERE t.kind = 'stake_reserve' AND (t.table_id, t.hand_id) IN ("
            "  SELECT h.table_id, h.id FROM tables_handparticipant p JOIN tables_hand h ON h.id = p.hand_id "
            "  WHERE p.user_id = %s AND h.status = 'in_play')",
            [user_id, since, user_id, user_id],
        )
        rows = cursor.fetchall()
    settled = [(min(_ms(at), now_ms), int(net)) for at, net, _ in rows if at is not None]
    at_risk = sum(int(r[2]) for r in rows if r[2] is not None)
    return settled, at_risk


def deposit_facts(user_id: int, *, since: datetime, now_ms: int) -> list[tuple[int, int]]:
    """The player's deposits ``(at_ms, amount)`` since ``since``; one committed "after" ``now_ms`` (a clock read
    earlier than the database's) counts at ``now_ms`` (issue #43)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT t.created_at, lp.amount FROM ledger_posting lp "
            "JOIN ledger_transaction t ON t.id = lp.transaction_id "
            "JOIN ledger_account a ON a.id = lp.account_id AND a.user_id = %s "
            "WHERE t.kind = 'deposit' AND t.created_at > %s",
            [user_id, since],
        )
        return [(min(_ms(at), now_ms), int(amount)) for at, amount in cursor.fetchall()]


def json_data(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value
