"""The ledger's guarantees, enforced by PostgreSQL itself (so no code path, shell or admin can break them):

- a transaction's postings sum to zero, checked at commit (deferred constraint trigger);
- postings and transactions are append-only (triggers refuse UPDATE and DELETE; a statement trigger refuses
  TRUNCATE); accounts and balance rows are never deleted, an account's identity never changes;
- a balance row changes only through a posting: inserting a posting adds its amount to the account's balance
  row (taking its row lock) and stores the result as the posting's ``balance_after``. A balance therefore
  always equals the sum of its postings, and the CHECK on balance rows (wallets and escrows >= 0) refuses a
  posting that would overdraw a wallet;
- a balance row's ``kind`` is its account's kind (composite foreign key), so that CHECK applies to the right
  rows.

TRUNCATE is refused (0003 removed the session opt-in this migration first had); only
``manage.py flush`` (ledger/management/commands/flush.py, which the test runner uses between transactional
tests) does that.
"""

from django.db import migrations

FORWARD = r"""
ALTER TABLE ledger_balance
    ADD CONSTRAINT ledger_balance_account_kind_fk
    FOREIGN KEY (account_id, kind) REFERENCES ledger_account (id, kind);

CREATE FUNCTION ledger_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ledger: % on % is refused: the ledger is append-only (post a correction instead)',
        TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation';
END
$$;

CREATE FUNCTION ledger_refuse_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('ledger.allow_truncate', true) = 'on' THEN
        RETURN NULL;
    END IF;
    RAISE EXCEPTION 'ledger: TRUNCATE on % is refused: the ledger is append-only', TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation';
END
$$;

CREATE FUNCTION ledger_account_identity_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.id <> OLD.id OR NEW.kind <> OLD.kind OR NEW.user_id IS DISTINCT FROM OLD.user_id
            OR NEW.table_id IS DISTINCT FROM OLD.table_id THEN
        RAISE EXCEPTION 'ledger: the identity of account % (id, kind, user, table) cannot change', OLD.code
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END
$$;

CREATE FUNCTION ledger_balance_only_by_postings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- Depth 1 is a statement on ledger_balance itself; the posting trigger's UPDATE runs at depth 2.
    IF TG_OP = 'INSERT' THEN
        IF NEW.balance <> 0 THEN
            RAISE EXCEPTION 'ledger: a balance row starts at 0 (account %)', NEW.account_id
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
    ELSIF pg_trigger_depth() < 2 OR NEW.account_id <> OLD.account_id OR NEW.kind <> OLD.kind THEN
        RAISE EXCEPTION 'ledger: the balance of account % changes only through postings', OLD.account_id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END
$$;

CREATE FUNCTION ledger_posting_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE ledger_balance SET balance = balance + NEW.amount
        WHERE account_id = NEW.account_id
        RETURNING balance INTO NEW.balance_after;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'ledger: account % has no balance row', NEW.account_id
            USING ERRCODE = 'foreign_key_violation';
    END IF;
    RETURN NEW;
END
$$;

CREATE FUNCTION ledger_transaction_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    total numeric;
BEGIN
    SELECT sum(amount) INTO total FROM ledger_posting WHERE transaction_id = NEW.transaction_id;
    IF total <> 0 THEN
        RAISE EXCEPTION 'ledger: transaction % is unbalanced: its postings sum to %', NEW.transaction_id, total
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER ledger_transaction_append_only BEFORE UPDATE OR DELETE ON ledger_transaction
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_transaction_no_truncate BEFORE TRUNCATE ON ledger_transaction
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_truncate();

CREATE TRIGGER ledger_posting_append_only BEFORE UPDATE OR DELETE ON ledger_posting
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_posting_no_truncate BEFORE TRUNCATE ON ledger_posting
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_truncate();
CREATE TRIGGER ledger_posting_apply BEFORE INSERT ON ledger_posting
    FOR EACH ROW EXECUTE FUNCTION ledger_posting_apply();
CREATE CONSTRAINT TRIGGER ledger_posting_balanced AFTER INSERT ON ledger_posting
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION ledger_transaction_balanced();

CREATE TRIGGER ledger_account_no_delete BEFORE DELETE ON ledger_account
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_account_identity_fixed BEFORE UPDATE ON ledger_account
    FOR EACH ROW EXECUTE FUNCTION ledger_account_identity_fixed();
CREATE TRIGGER ledger_account_no_truncate BEFORE TRUNCATE ON ledger_account
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_truncate();

CREATE TRIGGER ledger_balance_no_delete BEFORE DELETE ON ledger_balance
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_balance_only_by_postings BEFORE INSERT OR UPDATE ON ledger_balance
    FOR EACH ROW EXECUTE FUNCTION ledger_balance_only_by_postings();
CREATE TRIGGER ledger_balance_no_truncate BEFORE TRUNCATE ON ledger_balance
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_truncate();
"""

REVERSE = r"""
DROP TRIGGER ledger_balance_no_truncate ON ledger_balance;
DROP TRIGGER ledger_balance_only_by_postings ON ledger_balance;
DROP TRIGGER ledger_balance_no_delete ON ledger_balance;
DROP TRIGGER ledger_account_no_truncate ON ledger_account;
DROP TRIGGER ledger_account_identity_fixed ON ledger_account;
DROP TRIGGER ledger_account_no_delete ON ledger_account;
DROP TRIGGER ledger_posting_balanced ON ledger_posting;
DROP TRIGGER ledger_posting_apply ON ledger_posting;
DROP TRIGGER ledger_posting_no_truncate ON ledger_posting;
DROP TRIGGER ledger_posting_append_only ON ledger_posting;
DROP TRIGGER ledger_transaction_no_truncate ON ledger_transaction;
DROP TRIGGER ledger_transaction_append_only ON ledger_transaction;
DROP FUNCTION ledger_transaction_balanced();
DROP FUNCTION ledger_posting_apply();
DROP FUNCTION ledger_balance_only_by_postings();
DROP FUNCTION ledger_account_identity_fixed();
DROP FUNCTION ledger_refuse_truncate();
DROP FUNCTION ledger_refuse_change();
ALTER TABLE ledger_balance DROP CONSTRAINT ledger_balance_account_kind_fk;
"""


class Migration(migrations.Migration):
    dependencies = [("ledger", "0001_initial")]

    operations = [migrations.RunSQL(sql=FORWARD, reverse_sql=REVERSE)]
