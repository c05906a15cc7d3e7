"""The database itself refuses every bad write, whatever the code path (raw SQL here, committing for real).

Two layers: the application's role holds no UPDATE/DELETE/TRUNCATE on the append-only tables ("permission
denied"), and the triggers refuse them even to the owner role that holds every right (``as_owner``).
"""

from __future__ import annotations

import psycopg
import pytest
from django.core.management import call_command
from django.db import IntegrityError, ProgrammingError, transaction

from ledger import services
from ledger.accounts import wallet_for
from ledger.cashier_role import cashier_session
from ledger.models import Account, Balance, Posting, Transaction
from tests.conftest import owner_cursor

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def funded(make_user, operator):
    """A player with 100 chips (cage -100)."""
    player = make_user()
    services.deposit(user=player, amount=100, reference="r", operator=operator, cause=f"request:{player.pk}:1")
    return player


def _new_transaction(run_sql, cause: str) -> int:
    """A raw transaction row, inserted as the cashier's role (the application's may insert none: issue #43)."""
    with cashier_session():
        (tx_id,) = run_sql(
            "INSERT INTO ledger_transaction (kind, memo, cause, fingerprint, details) "
            "VALUES ('correction', 'test', %s, '', '{}') RETURNING id",
            [cause],
        )[0]
    return tx_id


def _post(run_sql, tx_id: int, account_id: int, amount: int) -> None:
    with cashier_session():
        run_sql(
            "INSERT INTO ledger_posting (transaction_id, account_id, amount, balance_after) VALUES (%s, %s, %s, 0)",
            [tx_id, account_id, amount],
        )


def as_owner(statement: str, params: list[object] | None = None) -> None:
    with owner_cursor() as cursor:
        cursor.execute(statement, params or [])


def _account_id(code: str) -> int:
    return Account.objects.get(code=code).pk


def test_unbalanced_transaction_is_refused_at_commit(funded, run_sql):
    wallet = wallet_for(funded)
    with pytest.raises(IntegrityError, match="unbalanced"), transaction.atomic():
        tx_id = _new_transaction(run_sql, "test:unbalanced")
        _post(run_sql, tx_id, wallet.pk, 5)
        # Nothing is checked yet: the constraint trigger is deferred to the commit.
        assert services.balance(wallet) == 105
    assert not Transaction.objects.filter(cause="test:unbalanced").exists()
    assert services.balance(wallet) == 100


def test_balanced_raw_transaction_commits(funded, run_sql):
    wallet, cage = wallet_for(funded), _account_id("house:cage")
    with transaction.atomic():
        tx_id = _new_transaction(run_sql, "test:balanced")
        _post(run_sql, tx_id, wallet.pk, 5)
        _post(run_sql, tx_id, cage, -5)
    assert services.balance(wallet) == 105
    assert services.balance("house:cage") == -105


def test_zero_amount_is_refused(funded, run_sql):
    with pytest.raises(IntegrityError, match="ledger_posting_amount_non_zero"), transaction.atomic():
        tx_id = _new_transaction(run_sql, "test:zero")
        _post(run_sql, tx_id, wallet_for(funded).pk, 0)


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE ledger_posting SET amount = amount + 1",
        "UPDATE ledger_posting SET balance_after = 0",
        "DELETE FROM ledger_posting",
        "UPDATE ledger_transaction SET memo = 'edited'",
        "DELETE FROM ledger_transaction",
    ],
)
def test_postings_and_transactions_are_never_updated_or_deleted(funded, run_sql, statement):
    before = list(Posting.objects.order_by("id").values_list("id", "amount", "balance_after"))
    with pytest.raises(ProgrammingError, match="permission denied"), transaction.atomic():
        run_sql(statement)
    with pytest.raises(psycopg.IntegrityError, match="append-only"):
        as_owner(statement)
    assert list(Posting.objects.order_by("id").values_list("id", "amount", "balance_after")) == before


def test_orm_update_and_delete_are_refused_too(funded):
    with pytest.raises(ProgrammingError, match="permission denied"), transaction.atomic():
        Posting.objects.all().delete()
    with pytest.raises(ProgrammingError, match="permission denied"), transaction.atomic():
        Transaction.objects.update(memo="edited")
    assert Posting.objects.count() == 2


@pytest.mark.parametrize("table", ["ledger_posting", "ledger_transaction", "ledger_balance", "ledger_account"])
def test_truncate_is_refused(funded, run_sql, table):
    with pytest.raises(ProgrammingError, match="permission denied"), transaction.atomic():
        run_sql(f"TRUNCATE {table} CASCADE")
    with pytest.raises(psycopg.IntegrityError, match="TRUNCATE"):
        as_owner(f"TRUNCATE {table} CASCADE")
    assert Posting.objects.count() == 2


def test_wallet_cannot_go_negative(funded, run_sql):
    wallet, cage = wallet_for(funded), _account_id("house:cage")
    with pytest.raises(IntegrityError, match="ledger_balance_non_negative"), transaction.atomic():
        tx_id = _new_transaction(run_sql, "test:overdraw")
        _post(run_sql, tx_id, wallet.pk, -101)
        _post(run_sql, tx_id, cage, 101)
    assert services.balance(wallet) == 100


def test_cage_and_bankroll_may_go_negative(funded, run_sql):
    cage, bankroll = _account_id("house:cage"), services.house_account("house:bankroll").pk
    with transaction.atomic():
        tx_id = _new_transaction(run_sql, "test:house")
        _post(run_sql, tx_id, bankroll, -500)
        _post(run_sql, tx_id, cage, 500)
    assert services.balance("house:bankroll") == -500


def test_duplicate_cause_is_refused(funded, run_sql):
    with pytest.raises(IntegrityError, match="ledger_tx_cause_key"), transaction.atomic():
        _new_transaction(run_sql, f"request:{funded.pk}:1")


def test_a_hand_is_settled_at_most_once(run_sql):
    insert = (
        "INSERT INTO ledger_transaction (kind, memo, cause, fingerprint, details, table_id, hand_id) "
        "VALUES ('hand_settlement', '', %s, '', '{}', 1, 1)"
    )
    with cashier_session():  # the only role that inserts transaction rows itself
        run_sql(insert, ["test:settle:a"])  # no postings: allowed by the database, never by the services
    with pytest.raises(IntegrityError, match="ledger_tx_one_settlement_per_hand"), cashier_session():
        run_sql(insert, ["test:settle:b"])


def test_balance_rows_change_only_through_postings(funded, run_sql):
    # the application role holds no UPDATE on the balance column; the owner meets the trigger
    with pytest.raises(ProgrammingError, match="permission denied"), transaction.atomic():
        run_sql("UPDATE ledger_balance SET balance = balance + 1000")
    with pytest.raises(ProgrammingError, match="permission denied"), transaction.atomic():
        Balance.objects.filter(account=wallet_for(funded)).update(balance=5)
    with pytest.raises(psycopg.IntegrityError, match="only through postings"):
        as_owner("UPDATE ledger_balance SET balance = balance + 1000")
    with pytest.raises(IntegrityError, match="starts at 0"), transaction.atomic():
        account = Account.objects.create(code="house:fees", kind="fees")
        Balance.objects.create(account=account, kind="fees", balance=7)
    assert services.balance(wallet_for(funded)) == 100


def test_balance_kind_is_the_account_kind(make_user, run_sql):
    user = make_user()
    with pytest.raises(IntegrityError, match="ledger_balance_account_kind_fk"), transaction.atomic():
        account = Account.objects.create(code=f"player:{user.username}", kind="wallet", user=user)
        Balance.objects.create(account=account, kind="cage")  # would escape the wallet CHECK


def test_accounts_are_never_deleted_nor_change_identity(funded, make_user, run_sql):
    wallet = wallet_for(funded)
    with pytest.raises(ProgrammingError, match="permission denied"), transaction.atomic():
        run_sql("DELETE FROM ledger_account WHERE id = %s", [wallet.pk])
    with pytest.raises(psycopg.IntegrityError, match="append-only"):
        as_owner("DELETE FROM ledger_account WHERE id = %s", [wallet.pk])
    with pytest.raises(ProgrammingError, match="permission denied"), transaction.atomic():
        run_sql("UPDATE ledger_account SET user_id = %s WHERE id = %s", [make_user().pk, wallet.pk])
    for column, value in (("user_id", make_user().pk), ("code", "house:bankroll:table:1")):
        with pytest.raises(psycopg.IntegrityError, match="identity"):
            as_owner(f"UPDATE ledger_account SET {column} = %s WHERE id = %s", [value, wallet.pk])


def test_balance_after_is_set_by_the_database_under_the_lock(funded, run_sql):
    wallet, cage = wallet_for(funded), _account_id("house:cage")
    with transaction.atomic():
        tx_id = _new_transaction(run_sql, "test:after")
        _post(run_sql, tx_id, wallet.pk, 7)  # balance_after given as 0: the trigger overrides it
        _post(run_sql, tx_id, cage, -7)
    latest = Posting.objects.filter(account=wallet).latest("id")
    assert latest.balance_after == 107


def test_posting_to_an_account_without_balance_row_is_refused(make_user, run_sql):
    user = make_user()
    with transaction.atomic():
        run_sql(
            "INSERT INTO ledger_account (code, kind, user_id) VALUES (%s, 'wallet', %s)",
            [f"player:{user.username}", user.pk],
        )
    account_id = Account.objects.get(user=user).pk
    with pytest.raises(IntegrityError, match="no balance row"), transaction.atomic():
        tx_id = _new_transaction(run_sql, "test:nobalance")
        _post(run_sql, tx_id, account_id, 1)


def test_no_session_setting_opens_truncate(funded, run_sql):
    with pytest.raises(psycopg.IntegrityError, match="TRUNCATE"), owner_cursor() as owner:
        owner.execute("SET LOCAL ledger.allow_truncate = 'on'")
        owner.execute("TRUNCATE ledger_posting CASCADE")
    assert Posting.objects.exists()


def test_the_test_flush_empties_the_ledger_and_truncate_stays_refused(funded, run_sql):
    call_command("flush", interactive=False, verbosity=0)  # devtools.testing_db: as the owner, triggers off inside
    assert Posting.objects.count() == 0
    with pytest.raises(ProgrammingError, match="permission denied"), transaction.atomic():
        run_sql("TRUNCATE ledger_posting CASCADE")
    with pytest.raises(psycopg.IntegrityError, match="TRUNCATE"):
        as_owner("TRUNCATE ledger_posting CASCADE")
