"""Which tables' rows each operation writes (issue #34, docs/scale-out.md): the map of a sharded layout.

Every row an operation inserts or updates carries, in its ``xmin``, the id of the transaction (or subtransaction)
that wrote it. An operation runs between two marker transactions of this test, so the rows it wrote are exactly
those whose ``xmin`` lies between the markers (the test database is this test's alone). Each such row is mapped
to the shard key it would be distributed by: ``table N`` (the event stream, read models, the table's escrow and
house bankroll, its ledger entries), ``player N`` (a wallet, a profile), or ``house <code>`` (the shared house
accounts). A row of any other relation maps to ``global <relation>``, so a new write shows up here.

Shown: every game command of a hand writes the rows of its own table and, when chips move, the wallets of
players seated there, and nothing else: no other table, no shared house account. The operations that cross are
listed (sitting, the cashier, the bankroll sweep) and asserted as such.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from ledger import services as ledger
from ledger.sweeps import sweep_table_bankroll
from tables import services
from tables.models import Table
from tests.support.play import make_players, make_table, state_of, step

pytestmark = pytest.mark.django_db(transaction=True)

Key = tuple[str, str]

_ACCOUNT_KEY = """CASE WHEN a.kind = 'escrow' THEN 'table:' || a.table_id
                      WHEN a.code LIKE 'house:bankroll:table:%%' THEN 'table:' || substr(a.code, 22)
                      WHEN a.kind = 'wallet' THEN 'player:' || a.user_id
                      ELSE 'house:' || a.code END"""
# relation -> (FROM clause aliasing it as r, the shard key of a row); other relations: by a table_id, stream_id or
# user_id column, else "global:<relation>"
_SPECIAL = {
    "tables_table": ("tables_table r", "'table:' || r.id"),
    "tables_handparticipant": (
        "tables_handparticipant r JOIN tables_hand h ON h.id = r.hand_id", "'table:' || h.table_id"
    ),
    "ledger_account": ("ledger_account r JOIN ledger_account a ON a.id = r.id", _ACCOUNT_KEY),
    "ledger_balance": ("ledger_balance r JOIN ledger_account a ON a.id = r.account_id", _ACCOUNT_KEY),
    "ledger_posting": ("ledger_posting r JOIN ledger_account a ON a.id = r.account_id", _ACCOUNT_KEY),
    "ledger_transaction": (
        "ledger_transaction r",
        "CASE WHEN r.table_id IS NOT NULL THEN 'table:' || r.table_id "
        "WHEN r.details ? 'user' THEN 'player:' || (r.details->>'user') ELSE 'house:' || r.kind END",
    ),
}


def _marker() -> int:
    """A transaction of its own; its id (the low 32 bits, as ``xmin`` holds it)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_current_xact_id()::text::bigint")
        return int(cursor.fetchone()[0]) % 2**32


def _relations() -> dict[str, set[str]]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname, array_agg(a.attname::text) FROM pg_class c "
            "JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped "
            "WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') "
            "AND NOT c.relispartition GROUP BY c.relname"
        )
        return {name: set(columns) for name, columns in cursor.fetchall()}


def _written(after: int, before: int) -> set[Key]:
    keys: set[Key] = set()
    with connection.cursor() as cursor:
        for relation, columns in _relations().items():
            if relation in _SPECIAL:
                source, key = _SPECIAL[relation]
            else:
                source = f"{relation} r"
                column = next((c for c in ("table_id", "stream_id") if c in columns), None)
                key = (
                    f"'table:' || r.{column}" if column
                    else "'player:' || r.user_id" if "user_id" in columns
                    else f"'global:{relation}'"
                )  # fmt: skip
            cursor.execute(
                f"SELECT DISTINCT {key} FROM {source} WHERE r.xmin::text::bigint > %s AND r.xmin::text::bigint < %s",
                [after, before],
            )
            keys |= {tuple(row[0].split(":", 1)) for row in cursor.fetchall()}  # type: ignore[misc]
    return keys


def _touches(operation: Callable[[], Any]) -> set[Key]:
    """The shard keys of every row ``operation`` wrote (in however many transactions it ran)."""
    start = _marker()
    operation()
    return _written(start, _marker())


def test_hand_actions_write_one_table_and_its_seated_players_only_and_the_crossings_are_listed():
    players = make_players(3, chips=2000, prefix="loc")
    other_players = make_players(2, chips=2000, prefix="loc-other")
    table, other = make_table("classic"), make_table("spanish", bank="house")
    seated = {("player", str(p.pk)) for p in players}
    own = ("table", str(table.pk))
    crossings: dict[str, set[Key]] = {}

    # sitting: the table's rows and the player's own (his profile, the client seed he brings)
    for user in players:
        crossings["sit"] = _touches(lambda user=user: services.table_sit(table_id=table.pk, user=user))
        assert own in crossings["sit"] and crossings["sit"] <= {own, ("player", str(user.pk))}
    for user in other_players:
        services.table_sit(table_id=other.pk, user=user)

    rng = random.Random(34)
    actions: list[tuple[int, set[Key]]] = []
    settled_before = state_of(table.pk).settled_through
    while state_of(table.pk).settled_through < settled_before + 3:
        version = state_of(table.pk).version
        actions.append((version, _touches(lambda: step(table, players, rng))))
        step(other, other_players, rng)  # the other table plays meanwhile
    assert len(actions) > 10
    for version, keys in actions:
        tables = {key for key in keys if key[0] == "table"}
        assert tables == {own}, f"the command at version {version} wrote {sorted(keys)}"
        assert keys - {own} <= seated, f"the command at version {version} wrote {sorted(keys)}"
    moved_chips = [keys for _, keys in actions if keys & seated]
    assert moved_chips and len(moved_chips) < len(actions)  # stakes and settlements touch wallets, hits do not

    # the crossings: the cage (a wallet and the shared cage), the sweep (a table and the shared bankroll)
    user = players[0]
    crossings["deposit"] = _touches(
        lambda: ledger.deposit(user=user, amount=5, reference="r", operator=user, cause=f"loc:{user.pk}")
    )
    assert crossings["deposit"] == {("player", str(user.pk)), ("house", "house:cage")}
    assert ledger.balance(f"house:bankroll:table:{other.pk}") != 0
    crossings["sweep"] = _touches(lambda: sweep_table_bankroll(other.pk))
    assert crossings["sweep"] == {("table", str(other.pk)), ("house", "house:bankroll")}
    crossings["leave"] = _touches(lambda: services.table_leave(table_id=table.pk, user=user))
    assert own in crossings["leave"]
    print({name: sorted(keys) for name, keys in crossings.items()})


def test_the_recorder_sees_a_write_to_another_table():
    """The recorder can fail: a write to a second table inside one recorded operation shows both."""
    first, second = Table.objects.create(name="a", preset="classic"), Table.objects.create(name="b", preset="classic")

    def both() -> None:
        Table.objects.filter(pk__in=[first.pk, second.pk]).update(name="c")

    assert _touches(both) == {("table", str(first.pk)), ("table", str(second.pk))}
