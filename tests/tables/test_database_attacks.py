"""Attacks by whoever holds the application's database role (issue #26), each done as that role and each failing,
leaving every balance, the escrow, the hash chain and the checkpoints as they were.

- Shadowing, variant 1: a temporary ``ledger_posting`` that the deferred zero-sum check would sum instead of the
  real one, then a one-legged +1,000,000 to a player.
- Shadowing, variant 2: a trigger on a temporary table that updates ``ledger_balance`` at trigger depth 2.
- The account-code change: the house bankroll of a table is found by its code.
- The checkpoint squat: unsigned checkpoints at future versions of a table. The application's role may insert no
  checkpoint at all, in either signing mode (the signer's role alone writes them); the squat is also run as the
  signer's role, which the database refuses too.

The role has no TEMPORARY on the database, so both shadowing variants already fail at their first statement. Each
is also run with TEMPORARY granted for the test (and, for variant 2, UPDATE on the balance column too), to show
that the triggers themselves cannot be fooled: their ``search_path`` is pinned, their tables schema-qualified,
and a balance row changes only inside the posting trigger, which runs as the owner.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.conf import settings
from django.db import DatabaseError, connection, transaction

from ledger.accounts import wallet_for
from tests.conftest import owner_cursor
from tests.support.play import make_players, make_table, play_hands

pytestmark = pytest.mark.django_db(transaction=True)

MILLION = 1_000_000


def _rows(sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params or [])
        return list(cursor.fetchall())


def _everything() -> dict[str, Any]:
    """What the attacks must leave as it was: every balance (wallets, escrows, bankrolls), every posting, the
    chain of every table and every checkpoint."""
    return {
        "balances": _rows("SELECT account_id, balance FROM ledger_balance ORDER BY account_id"),
        "postings": _rows("SELECT id, account_id, amount FROM ledger_posting ORDER BY id"),
        "accounts": _rows("SELECT id, code, kind FROM ledger_account ORDER BY id"),
        "chain": _rows("SELECT stream_id, version, hash FROM tables_event ORDER BY stream_id, version"),
        "checkpoints": _rows("SELECT table_id, version, hash FROM tables_checkpoint ORDER BY table_id, version"),
    }


@pytest.fixture
def casino() -> dict[str, Any]:
    """A house-banked table that played a hand (escrow, bankroll, checkpoint) and a player, mallory."""
    players = make_players(2, chips=500, prefix="atk")
    table = make_table("classic", bank="house")
    play_hands(table, players, 1, random.Random(26))
    wallet = wallet_for(players[0])
    bankroll = _rows("SELECT id FROM ledger_account WHERE kind = 'bankroll' AND code LIKE %s", [f"%:table:{table.pk}"])
    return {
        "table": table.pk,
        "wallet": wallet.pk,
        "bankroll": bankroll[0][0] if bankroll else None,
        "players": players,
    }


@contextmanager
def granted(*privileges: str) -> Iterator[None]:
    """Grant the application role more than it has, for the length of a test (the owner grants, then revokes):
    to show that the next line of defence holds too."""
    app = settings.DATABASE_APP_ROLE
    database = connection.settings_dict["NAME"]
    statements = [p.format(db=f'"{database}"', app=f'"{app}"') for p in privileges]
    with owner_cursor() as owner:
        for statement in statements:
            owner.execute(f"GRANT {statement}")
    try:
        yield
    finally:
        with owner_cursor() as owner:
            for statement in statements:
                owner.execute(f"REVOKE {statement.replace(' TO ', ' FROM ')}")


def _attack(*statements: str, params: list[list[Any]] | None = None, refusal: str) -> None:
    """Run the statements as the application role in one transaction that commits (so deferred checks fire),
    expecting PostgreSQL to refuse with a message matching ``refusal``."""
    with pytest.raises(DatabaseError, match=refusal), transaction.atomic(), connection.cursor() as cursor:
        for i, statement in enumerate(statements):
            cursor.execute(statement, (params or [])[i] if params and i < len(params) else [])


def _one_legged_million(wallet: int) -> tuple[str, str]:
    return (
        "INSERT INTO public.ledger_transaction (kind, memo, cause, fingerprint, details, created_at) "
        "VALUES ('deposit', 'gift', 'attack:' || md5(random()::text), '', '{}', now())",
        "INSERT INTO public.ledger_posting (transaction_id, account_id, amount, balance_after) "
        f"SELECT currval(pg_get_serial_sequence('public.ledger_transaction', 'id')), {wallet}, {MILLION}, 0",
    )


def _lever_on_a_temporary_table(wallet: int) -> tuple[str, ...]:
    """Variant 2: a temporary table whose trigger adds a million to ``wallet`` (at trigger depth 2)."""
    return (
        "CREATE FUNCTION pg_temp.boost() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        f"UPDATE public.ledger_balance SET balance = balance + {MILLION} WHERE account_id = {wallet}; "
        "RETURN NEW; END $$",
        "CREATE TEMPORARY TABLE lever (id int)",
        "CREATE TRIGGER lever_pull AFTER INSERT ON pg_temp.lever FOR EACH ROW EXECUTE FUNCTION pg_temp.boost()",
        "INSERT INTO pg_temp.lever VALUES (1)",
    )


def test_the_application_role_may_not_create_temporary_tables(casino):
    before = _everything()
    _attack(
        "CREATE TEMPORARY TABLE ledger_posting (transaction_id bigint, amount bigint)",
        refusal="permission denied to create temporary tables",
    )
    assert _everything() == before


def test_a_temporary_ledger_posting_does_not_fool_the_zero_sum_check(casino):
    """Variant 1, with TEMPORARY granted (and INSERT on transactions and postings, which the role no longer holds:
    issue #43): the deferred check sums ``public.ledger_posting``, whatever the caller's search path says."""
    before = _everything()
    with granted(
        "TEMPORARY ON DATABASE {db} TO {app}",
        "INSERT ON TABLE public.ledger_transaction, public.ledger_posting TO {app}",
    ):
        _attack(
            "CREATE TEMPORARY TABLE ledger_posting (transaction_id bigint, amount bigint)",
            "SET LOCAL search_path = pg_temp, public",
            *_one_legged_million(casino["wallet"]),
            refusal="unbalanced",
        )
    assert _everything() == before


def test_a_trigger_on_a_temporary_table_cannot_move_a_balance(casino):
    """Variant 2, with TEMPORARY granted: the UPDATE of ``ledger_balance`` comes at trigger depth 2, from a
    temporary table's trigger. Refused for want of UPDATE on the balance column."""
    before = _everything()
    with granted("TEMPORARY ON DATABASE {db} TO {app}"):
        _attack(
            *_lever_on_a_temporary_table(casino["wallet"]),
            refusal="permission denied for table ledger_balance",
        )
    assert _everything() == before


def test_even_with_update_on_the_balance_column_only_the_posting_trigger_moves_a_balance(casino):
    """Variant 2 again, with UPDATE on ``ledger_balance.balance`` granted as well: the balance row's trigger
    refuses a change at depth 2 that does not run as the table's owner (inside the posting trigger)."""
    before = _everything()
    with granted("TEMPORARY ON DATABASE {db} TO {app}", "UPDATE (balance) ON TABLE public.ledger_balance TO {app}"):
        _attack(
            *_lever_on_a_temporary_table(casino["wallet"]),
            refusal="changes only through postings",
        )
    assert _everything() == before


@pytest.mark.parametrize("target", ["bankroll", "wallet"])
def test_the_application_role_cannot_change_an_account_code(casino, target):
    """The house bankroll of a table is looked up by its code: renaming a player's wallet to it (or the bankroll
    away) would route the house's chips. No UPDATE on the column, and the identity trigger refuses it anyway."""
    assert casino["bankroll"] is not None
    before = _everything()
    table = casino["table"]
    attacks = {
        "bankroll": f"UPDATE ledger_account SET code = 'moved:{table}' WHERE id = {casino['bankroll']}",
        "wallet": (f"UPDATE ledger_account SET code = 'house:bankroll:table:{table}' WHERE id = {casino['wallet']}"),
    }
    _attack(attacks[target], refusal="permission denied for table ledger_account")
    assert _everything() == before
    with pytest.raises(Exception, match="cannot change"), owner_cursor() as owner:  # the owner: the trigger
        owner.execute(attacks[target].replace("UPDATE ledger_account", "UPDATE public.ledger_account"))
    assert _everything() == before


def _as_signer_role(statement: str, *, refusal: str) -> None:
    """Run ``statement`` as the signer's role (what the signer, or a process holding its credentials, can do),
    expecting PostgreSQL to refuse it at commit with a message matching ``refusal``."""
    import psycopg

    from tables.signer import signer_connection_params

    params = signer_connection_params()
    assert params is not None, "make test sets SIGNER_DATABASE_URL"
    with pytest.raises(psycopg.DatabaseError, match=refusal), psycopg.connect(**params) as conn:
        conn.execute(statement)


def test_the_checkpoint_squat_is_refused_and_the_table_plays_on(casino):
    """Unsigned checkpoints at future versions of a table would make each later hand end fail on the unique
    (table, version): stakes stuck in escrow. The application's role may not insert a checkpoint at all (in the
    suite's signing mode, ``inline``, as in ``signer``); the signer's role may, and the database refuses it a
    checkpoint that names no stored event."""
    from tables import verify
    from tables.models import Hand, Table

    assert settings.CHECKPOINT_SIGNER == "inline"  # the suite's default: this process signs, and still cannot write
    table = casino["table"]
    version = _rows("SELECT max(version) FROM tables_event WHERE stream_id = %s", [table])[0][0]
    before = _everything()
    assert before["checkpoints"], "the hand's end was signed (written by the signer's role)"
    squat = (
        "INSERT INTO tables_checkpoint (table_id, version, hash, key_id, signature, at) "
        f"SELECT {table}, v, repeat('0', 64), 'forged', 'AAAA', now() FROM generate_series({version + 1}, "
        f"{version + 200}) AS v"
    )
    _attack(squat, refusal="permission denied for table tables_checkpoint")
    at_a_stored_event = squat.replace(f"{version + 1}, {version + 200}", f"{version}, {version}").replace(
        "repeat('0', 64)", f"(SELECT hash FROM tables_event WHERE stream_id = {table} AND version = {version})"
    )
    _attack(at_a_stored_event, refusal="permission denied for table tables_checkpoint")
    assert _everything() == before
    _as_signer_role(squat, refusal="has no event")
    # a copy of a stored hash at a future version is no better
    _as_signer_role(
        squat.replace("repeat('0', 64)", f"(SELECT hash FROM tables_event WHERE stream_id = {table} LIMIT 1)"),
        refusal="has no event",
    )
    assert _everything() == before
    # the table plays on: its next hands end, are signed and verify
    players = casino["players"]
    play_hands(Table.objects.get(pk=table), players, 2, random.Random(27))
    signed = _rows("SELECT count(*) FROM tables_checkpoint WHERE table_id = %s AND version > %s", [table, version])
    assert signed[0][0] >= 2
    for hand in Hand.objects.filter(table_id=table).exclude(status="in_play"):
        report = verify.verify_hand(hand, record=False)
        assert report.failing() == {}, report
