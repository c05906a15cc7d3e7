"""The ledger's triggers cannot be fooled by the caller's ``search_path`` (issue #26).

Before, the trigger functions named their tables without a schema and ran with the caller's ``search_path``,
where a temporary table comes first: a temporary ``ledger_posting`` made the deferred zero-sum check sum
nothing, and a trigger on a temporary table updated ``ledger_balance`` at trigger depth 2, which the "only by
postings" check let through. Now:

- every function sets ``search_path = pg_catalog, pg_temp`` (temporary objects last) and names its tables
  ``public.<table>``;
- ``ledger_posting_apply`` (the posting trigger that moves a balance) is ``SECURITY DEFINER``, owned by the
  owner role: the application role has no UPDATE on ``ledger_balance.balance`` at all (backoffice/dbroles.py), and a
  balance row changes only when the trigger runs as the table's owner, i.e. inside that function;
- an account's code is part of its identity (the house bankroll of a table is found by its code).

``ledger_hand_entry`` is 0004's function with its tables qualified and its path pinned (derived from 0004's text,
so the two cannot drift). It stays SECURITY INVOKER: everything that binds the caller binds it.
"""

import importlib
import re

from django.db import migrations

PATH = "SET search_path = pg_catalog, pg_temp"
_TABLE = re.compile(r"(?<![\w.'])(ledger_(?:transaction|posting|account|balance))\b")

_HAND_ENTRY_0004 = importlib.import_module("ledger.migrations.0004_hand_entry_function").FORWARD


def _pinned(function_sql: str) -> str:
    """0004's ``CREATE FUNCTION`` as ``CREATE OR REPLACE``, tables qualified, the search path pinned."""
    pinned = _TABLE.sub(r"public.\1", function_sql)
    pinned = pinned.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1)
    assert pinned.count("LANGUAGE plpgsql VOLATILE AS $$") == 1
    return pinned.replace("LANGUAGE plpgsql VOLATILE AS $$", f"LANGUAGE plpgsql VOLATILE {PATH} AS $$")


FORWARD = rf"""
ALTER FUNCTION public.ledger_refuse_change() {PATH};
ALTER FUNCTION public.ledger_refuse_truncate() {PATH};

CREATE OR REPLACE FUNCTION public.ledger_account_identity_fixed() RETURNS trigger LANGUAGE plpgsql {PATH} AS $$
BEGIN
    IF NEW.id <> OLD.id OR NEW.kind <> OLD.kind OR NEW.code <> OLD.code
            OR NEW.user_id IS DISTINCT FROM OLD.user_id OR NEW.table_id IS DISTINCT FROM OLD.table_id THEN
        RAISE EXCEPTION 'ledger: the identity of account % (id, kind, code, user, table) cannot change', OLD.code
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END
$$;

CREATE OR REPLACE FUNCTION public.ledger_balance_only_by_postings() RETURNS trigger LANGUAGE plpgsql {PATH} AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.balance <> 0 THEN
            RAISE EXCEPTION 'ledger: a balance row starts at 0 (account %)', NEW.account_id
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
    -- only the posting trigger (SECURITY DEFINER: it runs as the table's owner) changes a balance row; the
    -- trigger depth alone proved nothing (a trigger on a temporary table runs at depth 2 too)
    ELSIF pg_trigger_depth() < 2 OR NEW.account_id <> OLD.account_id OR NEW.kind <> OLD.kind
            OR current_user <> (SELECT pg_get_userbyid(c.relowner) FROM pg_class c WHERE c.oid = TG_RELID) THEN
        RAISE EXCEPTION 'ledger: the balance of account % changes only through postings', OLD.account_id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END
$$;

CREATE OR REPLACE FUNCTION public.ledger_posting_apply() RETURNS trigger LANGUAGE plpgsql
SECURITY DEFINER {PATH} AS $$
BEGIN
    UPDATE public.ledger_balance SET balance = balance + NEW.amount
        WHERE account_id = NEW.account_id
        RETURNING balance INTO NEW.balance_after;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'ledger: account % has no balance row', NEW.account_id
            USING ERRCODE = 'foreign_key_violation';
    END IF;
    RETURN NEW;
END
$$;

CREATE OR REPLACE FUNCTION public.ledger_transaction_balanced() RETURNS trigger LANGUAGE plpgsql {PATH} AS $$
DECLARE
    total numeric;
BEGIN
    SELECT sum(amount) INTO total FROM public.ledger_posting WHERE transaction_id = NEW.transaction_id;
    IF total <> 0 THEN
        RAISE EXCEPTION 'ledger: transaction % is unbalanced: its postings sum to %', NEW.transaction_id, total
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END
$$;

{_pinned(_HAND_ENTRY_0004)}
"""

REVERSE = r"""
ALTER FUNCTION public.ledger_refuse_change() RESET search_path;
ALTER FUNCTION public.ledger_refuse_truncate() RESET search_path;
CREATE OR REPLACE FUNCTION ledger_account_identity_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.id <> OLD.id OR NEW.kind <> OLD.kind OR NEW.user_id IS DISTINCT FROM OLD.user_id
            OR NEW.table_id IS DISTINCT FROM OLD.table_id THEN
        RAISE EXCEPTION 'ledger: the identity of account % (id, kind, user, table) cannot change', OLD.code
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END
$$;
ALTER FUNCTION public.ledger_posting_apply() SECURITY INVOKER RESET search_path;
ALTER FUNCTION public.ledger_transaction_balanced() RESET search_path;
"""


class Migration(migrations.Migration):
    dependencies = [("ledger", "0004_hand_entry_function")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
