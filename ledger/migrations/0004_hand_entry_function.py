"""A hand's ledger entry (a stake reserve or a settlement) as one server-side function call (issue #15).

Before, an entry was five statements inside a savepoint (look the cause up, lock the balance rows, read the
hand's postings, insert the transaction, insert the postings), each a round trip. ``ledger_hand_entry`` does the
same steps, in the same order and with the same locks, in one call:

1. a cause already posted: answers ``repeat`` (same fingerprint) or ``conflict``, writing nothing;
2. the accounts (the table's escrow; each party's wallet, or the table's house bankroll for the house): a
   missing one answers ``missing`` (the caller creates it and calls again: account codes need the username);
3. locks their balance rows in ascending account id (as every writer does) and reads the balances;
4. reads the hand's entries in a new statement, so under the escrow's lock (every hand entry takes it) it sees
   every entry committed before;
5. checks what the services checked: a settled hand takes nothing more; all of a hand's stakes name the same
   banker; a wallet never pays more than it holds; a settlement pays out exactly what the hand holds, each
   party its reserves plus its net (the banker minus the sum of the nets). A refusal answers ``refused`` with
   the balances and the hand's state (the caller words the error) and writes nothing, so the caller's
   transaction stays usable without a savepoint;
6. inserts the transaction (``ON CONFLICT (cause) DO NOTHING``: a concurrent twin answers ``raced``) and its
   postings, whose trigger moves the balances; the deferred zero-sum trigger still checks it at commit.

The function is not SECURITY DEFINER: it runs with the caller's rights, so every trigger, CHECK and privilege
that binds the caller binds it too. It adds no guarantee of its own that the database did not already have.
"""

from django.db import migrations

FORWARD = r"""
CREATE FUNCTION ledger_hand_entry(
    p_kind text,          -- 'stake_reserve' or 'hand_settlement'
    p_cause text,
    p_fingerprint text,
    p_memo text,
    p_table bigint,
    p_hand bigint,
    p_actor bigint,
    p_details jsonb,
    p_banker bigint,      -- a reserve's banker (NULL: the house); unused for a settlement
    p_parties bigint[],   -- each leg's party other than the escrow: a user id, NULL for the house
    p_amounts bigint[],   -- the legs' signed amounts, in the same order; the escrow takes minus their sum
    p_nets jsonb          -- a settlement's punter nets: [[user id, net], ...]
) RETURNS jsonb
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    v_house_code text := 'house:bankroll:table:' || p_table;
    v_existing record;
    v_escrow bigint;
    v_accounts bigint[];
    v_balances jsonb;
    v_settled boolean;
    v_reserves bigint;
    v_bankers jsonb;
    v_held bigint;
    v_moved jsonb;
    v_escrow_amount bigint;
    v_refused boolean := false;
    v_differences bigint;
    v_tx record;
    v_ids bigint[];
    v_legs bigint[];
    v_posted jsonb;
BEGIN
    SELECT id, fingerprint INTO v_existing FROM ledger_transaction WHERE cause = p_cause;
    IF FOUND THEN
        RETURN jsonb_build_object(
            'status', CASE WHEN v_existing.fingerprint = p_fingerprint THEN 'repeat' ELSE 'conflict' END,
            'id', v_existing.id);
    END IF;

    SELECT id INTO v_escrow FROM ledger_account WHERE table_id = p_table AND kind = 'escrow';
    SELECT coalesce(array_agg(a.id ORDER BY x.n), '{}') INTO v_accounts
      FROM unnest(p_parties) WITH ORDINALITY AS x (party, n)
      LEFT JOIN ledger_account a
        ON (x.party IS NULL AND a.code = v_house_code) OR (x.party IS NOT NULL AND a.user_id = x.party);
    IF v_escrow IS NULL OR array_position(v_accounts, NULL) IS NOT NULL THEN
        RETURN jsonb_build_object('status', 'missing');
    END IF;

    SELECT jsonb_object_agg(locked.account_id::text, jsonb_build_array(a.code, locked.balance)) INTO v_balances
      FROM (SELECT account_id, balance FROM ledger_balance
             WHERE account_id = ANY(v_accounts || v_escrow)
             ORDER BY account_id FOR UPDATE) AS locked
      JOIN ledger_account a ON a.id = locked.account_id;

    -- a new statement: it sees every entry committed before this transaction took the escrow's lock
    SELECT coalesce(bool_or(t.kind = 'hand_settlement'), false),
           count(DISTINCT t.id) FILTER (WHERE t.kind = 'stake_reserve'),
           coalesce(jsonb_agg(DISTINCT coalesce(t.details -> 'banker', 'null'::jsonb))
                    FILTER (WHERE t.kind = 'stake_reserve'), '[]'::jsonb),
           coalesce(sum(p.amount) FILTER (WHERE p.account_id = v_escrow), 0)
      INTO v_settled, v_reserves, v_bankers, v_held
      FROM ledger_transaction t JOIN ledger_posting p ON p.transaction_id = t.id
     WHERE t.table_id = p_table AND t.hand_id = p_hand;
    -- what the hand moved per party: [user id or null, code or null, amount]; a house bankroll is [null, null]
    SELECT coalesce(jsonb_agg(jsonb_build_array(m.user_id, m.code, m.amount)), '[]'::jsonb) INTO v_moved
      FROM (SELECT CASE WHEN a.kind = 'wallet' THEN a.user_id END AS user_id,
                   CASE WHEN a.kind NOT IN ('wallet', 'bankroll') THEN a.code END AS code,
                   sum(p.amount) AS amount
              FROM ledger_transaction t
              JOIN ledger_posting p ON p.transaction_id = t.id
              JOIN ledger_account a ON a.id = p.account_id
             WHERE t.table_id = p_table AND t.hand_id = p_hand AND a.id <> v_escrow
             GROUP BY 1, 2) AS m;

    v_escrow_amount := -(SELECT coalesce(sum(x), 0) FROM unnest(p_amounts) AS x);
    IF v_settled THEN
        v_refused := true;
    ELSIF p_kind = 'stake_reserve' THEN
        IF v_bankers <> '[]'::jsonb AND v_bankers <> jsonb_build_array(p_banker) THEN
            v_refused := true;
        END IF;
        -- a wallet never pays more than it holds (the house bankroll may go negative)
        IF EXISTS (SELECT 1 FROM unnest(p_parties, p_amounts, v_accounts) AS l (party, amount, account_id)
                    WHERE l.party IS NOT NULL AND l.amount < 0
                      AND (v_balances -> l.account_id::text ->> 1)::bigint + l.amount < 0) THEN
            v_refused := true;
        END IF;
    ELSIF p_kind = 'hand_settlement' THEN
        IF v_reserves = 0 OR -v_escrow_amount <> v_held OR jsonb_array_length(v_bankers) <> 1 THEN
            v_refused := true;
        ELSE
            -- each party's payout is what it reserved plus its net; the banker's net is minus the nets' sum
            WITH nets AS (
                SELECT 'u:' || (e ->> 0) AS party, (e ->> 1)::bigint AS amount
                  FROM jsonb_array_elements(p_nets) AS e
                UNION ALL
                SELECT CASE WHEN v_bankers -> 0 = 'null'::jsonb THEN 'h' ELSE 'u:' || (v_bankers ->> 0) END,
                       -coalesce(sum((e ->> 1)::bigint), 0)
                  FROM jsonb_array_elements(p_nets) AS e
            ), moved AS (
                SELECT CASE WHEN m -> 0 <> 'null'::jsonb THEN 'u:' || (m ->> 0)
                            WHEN m -> 1 <> 'null'::jsonb THEN 'c:' || (m ->> 1)
                            ELSE 'h' END AS party,
                       -(m ->> 2)::bigint AS amount
                  FROM jsonb_array_elements(v_moved) AS m
            ), expected AS (
                SELECT party, sum(amount) AS amount FROM (SELECT * FROM nets UNION ALL SELECT * FROM moved) AS x
                 GROUP BY party
            ), paid AS (
                SELECT CASE WHEN party IS NULL THEN 'h' ELSE 'u:' || party END AS party, sum(amount) AS amount
                  FROM unnest(p_parties, p_amounts) AS l (party, amount) GROUP BY 1
            )
            SELECT count(*) INTO v_differences
              FROM expected FULL JOIN paid USING (party)
             WHERE coalesce(expected.amount, 0) <> coalesce(paid.amount, 0);
            v_refused := v_differences > 0;
        END IF;
    ELSE
        RAISE EXCEPTION 'ledger_hand_entry: unknown kind %', p_kind USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF v_refused THEN
        RETURN jsonb_build_object(
            'status', 'refused', 'balances', v_balances, 'accounts', to_jsonb(v_accounts), 'escrow', v_escrow,
            'settled', v_settled, 'reserves', v_reserves, 'bankers', v_bankers, 'held', v_held, 'moved', v_moved);
    END IF;

    IF p_kind = 'hand_settlement' THEN  -- a settlement records the banker its hand's reserves name
        p_details := jsonb_set(p_details, '{banker}', v_bankers -> 0);
    END IF;
    INSERT INTO ledger_transaction (kind, memo, cause, fingerprint, hand_id, table_id, actor_id, details)
    VALUES (p_kind, p_memo, p_cause, p_fingerprint, p_hand, p_table, p_actor, p_details)
    ON CONFLICT (cause) DO NOTHING
    RETURNING id, created_at INTO v_tx;
    IF v_tx.id IS NULL THEN
        RETURN jsonb_build_object('status', 'raced');
    END IF;

    -- the legs in the services' order: a reserve's parties then the escrow; a settlement's escrow first
    IF p_kind = 'hand_settlement' THEN
        v_ids := CASE WHEN v_escrow_amount <> 0 THEN ARRAY[v_escrow] ELSE '{}' END || v_accounts;
        v_legs := CASE WHEN v_escrow_amount <> 0 THEN ARRAY[v_escrow_amount] ELSE '{}' END || p_amounts;
    ELSE
        v_ids := v_accounts || CASE WHEN v_escrow_amount <> 0 THEN ARRAY[v_escrow] ELSE '{}' END;
        v_legs := p_amounts || CASE WHEN v_escrow_amount <> 0 THEN ARRAY[v_escrow_amount] ELSE '{}' END;
    END IF;
    WITH inserted AS (
        INSERT INTO ledger_posting (transaction_id, account_id, amount, balance_after)
        SELECT v_tx.id, leg.account_id, leg.amount, 0
          FROM unnest(v_ids, v_legs) WITH ORDINALITY AS leg (account_id, amount, n)
         ORDER BY leg.n
        RETURNING id, account_id, amount, balance_after
    )
    SELECT jsonb_agg(jsonb_build_array(id, account_id, amount, balance_after) ORDER BY id) INTO v_posted
      FROM inserted;
    RETURN jsonb_build_object('status', 'posted', 'id', v_tx.id, 'created_at', v_tx.created_at, 'posted', v_posted,
                              'details', p_details);
END
$$;
"""

REVERSE = """
DROP FUNCTION ledger_hand_entry(text, text, text, text, bigint, bigint, bigint, jsonb, bigint, bigint[], bigint[],
                                jsonb);
"""


class Migration(migrations.Migration):
    dependencies = [("ledger", "0003_truncate_always_refused")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
