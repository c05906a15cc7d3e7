"""The bankroll sweep as a database function (issue #43): the application role inserts no transaction itself.

``ledger_sweep_bankroll(table)`` (SECURITY DEFINER, owned by the owner role, path pinned) moves the whole balance of
``house:bankroll:table:<table>`` into ``house:bankroll``: the amount is the balance it reads under the two rows'
locks (taken in ascending account id, as every writer does), not the caller's. It answers the transaction's id, the
one already posted for the same cause (``sweep:<code>:<last posting swept>``), or NULL when there is nothing to
sweep or an account is missing. It moves chips between two house accounts only, so whoever may call it changes no
total and no player's balance.
"""

from django.db import migrations

FORWARD = r"""
CREATE FUNCTION public.ledger_sweep_bankroll(p_table bigint) RETURNS bigint
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    v_code text := 'house:bankroll:table:' || p_table;
    v_part bigint;
    v_bankroll bigint;
    v_amount bigint;
    v_through bigint;
    v_cause text;
    v_tx bigint;
BEGIN
    SELECT id INTO v_part FROM public.ledger_account WHERE code = v_code AND kind = 'bankroll';
    SELECT id INTO v_bankroll FROM public.ledger_account WHERE code = 'house:bankroll' AND kind = 'bankroll';
    IF v_part IS NULL OR v_bankroll IS NULL THEN
        RETURN NULL;
    END IF;
    PERFORM 1 FROM public.ledger_balance WHERE account_id IN (v_part, v_bankroll) ORDER BY account_id FOR UPDATE;
    SELECT balance INTO v_amount FROM public.ledger_balance WHERE account_id = v_part;
    IF v_amount = 0 THEN
        RETURN NULL;
    END IF;
    SELECT max(id) INTO v_through FROM public.ledger_posting WHERE account_id = v_part;
    v_cause := 'sweep:' || v_code || ':' || v_through;
    INSERT INTO public.ledger_transaction (kind, memo, cause, fingerprint, table_id, details)
    VALUES ('bankroll_sweep', v_code || ' swept into house:bankroll', v_cause,
            encode(sha256(convert_to(format('bankroll_sweep:%s:%s:%s', p_table, v_amount, v_through), 'UTF8')), 'hex'),
            p_table, jsonb_build_object('amount', v_amount, 'through_posting', v_through))
    ON CONFLICT (cause) DO NOTHING
    RETURNING id INTO v_tx;
    IF v_tx IS NULL THEN
        SELECT id INTO v_tx FROM public.ledger_transaction WHERE cause = v_cause;
        RETURN v_tx;
    END IF;
    INSERT INTO public.ledger_posting (transaction_id, account_id, amount, balance_after)
    SELECT v_tx, leg.account_id, leg.amount, 0
      FROM (VALUES (v_part, -v_amount), (v_bankroll, v_amount)) AS leg (account_id, amount)
     ORDER BY leg.account_id;
    RETURN v_tx;
END
$$;
"""

REVERSE = "DROP FUNCTION public.ledger_sweep_bankroll(bigint);"


class Migration(migrations.Migration):
    dependencies = [("ledger", "0006_bankroll_sweep")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
