"""A hand's ledger entry is what its stored event moves, derived by the database (issue #43, DESIGN.md principle 17).

Before, the game's process told ``ledger_hand_entry`` which wallets to move and by how much, and the application
role could also insert any balanced transaction itself. Now:

- ``ledger_event_moves(table, cause)`` reads the event a hand entry's cause names (``event:<table>:<version>``,
  the cause ``tables.ledger_bridge`` gives every entry) from the event store and answers what it moves: a stake
  (``BetPlaced``, ``StakeRaised``, ``HandSplit``) takes ``punter_reserve`` from the punter's wallet and
  ``banker_reserve`` from the banker's (the table's house bankroll for the house); a settlement (``HandSettled``,
  or ``HandAbandoned`` returning stakes) pays ``payouts``, with each punter's net from ``results``. Any other
  event, or a cause naming no stored event of that table, moves nothing;
- ``ledger_hand_entry`` (0004's, pinned by 0005) refuses, before it locks or writes anything, an entry whose kind,
  legs (party and amount, compared as sorted lists), banker or nets are not exactly those, and becomes SECURITY
  DEFINER (owned by the owner role, path pinned): it is the only way the application role writes a transaction
  or a posting, which it may no longer insert itself (``backoffice.dbroles``). The ledger's triggers and CHECKs
  still bind what it writes (the definer is no superuser).

What the caller still names: the hand id (the ledger's reference for a hand; its escrow checks stay per hand),
the memo and the descriptive details. See docs/ledger.md, "Entries derived from events".
"""

import importlib

from django.db import migrations

_PINNED = importlib.import_module("ledger.migrations.0005_pinned_search_path")
PATH = _PINNED.PATH

MOVES = rf"""
CREATE FUNCTION public.ledger_event_moves(p_table bigint, p_cause text) RETURNS jsonb
LANGUAGE plpgsql STABLE {PATH} AS $$
DECLARE
    v_match text[];
    v_type text;
    v_data jsonb;
    v_banker bigint;
BEGIN
    v_match := regexp_match(p_cause, '^event:([0-9]{{1,18}}):([0-9]{{1,9}})$');
    IF v_match IS NULL OR v_match[1]::bigint <> p_table THEN
        RETURN NULL;
    END IF;
    SELECT e.type, e.data INTO v_type, v_data FROM public.tables_event e
     WHERE e.stream_id = p_table AND e.version = v_match[2]::integer;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    IF v_type IN ('BetPlaced', 'StakeRaised', 'HandSplit') THEN
        v_banker := CASE WHEN coalesce(v_data ->> 'banker_id', 'house') = 'house' THEN NULL
                         ELSE (v_data ->> 'banker_id')::bigint END;
        RETURN jsonb_build_object(
            'kind', 'stake_reserve',
            'banker', coalesce(to_jsonb(v_banker), 'null'::jsonb),
            'nets', '[]'::jsonb,
            'legs', (SELECT coalesce(jsonb_agg(jsonb_build_array(l.party, l.amount)
                                               ORDER BY l.party NULLS FIRST, l.amount), '[]'::jsonb)
                       FROM (VALUES ((v_data ->> 'player_id')::bigint, -(v_data ->> 'punter_reserve')::bigint),
                                    (v_banker, -(v_data ->> 'banker_reserve')::bigint)) AS l (party, amount)
                      WHERE l.amount <> 0));
    ELSIF v_type IN ('HandSettled', 'HandAbandoned') THEN
        RETURN jsonb_build_object(
            'kind', 'hand_settlement',
            'banker', 'null'::jsonb,
            'legs', (SELECT coalesce(jsonb_agg(jsonb_build_array(l.party, l.amount)
                                               ORDER BY l.party NULLS FIRST, l.amount), '[]'::jsonb)
                       FROM (SELECT CASE WHEN p.key = 'house' THEN NULL ELSE p.key::bigint END AS party,
                                    p.value::bigint AS amount
                               FROM jsonb_each_text(coalesce(v_data -> 'payouts', '{{}}'::jsonb)) AS p) AS l
                      WHERE l.amount <> 0),
            'nets', (SELECT coalesce(jsonb_agg(jsonb_build_array(n.party, n.net) ORDER BY n.party), '[]'::jsonb)
                       FROM (SELECT (r ->> 'player_id')::bigint AS party, sum((r ->> 'net')::bigint) AS net
                               FROM jsonb_array_elements(coalesce(v_data -> 'results', '[]'::jsonb)) AS r
                              GROUP BY 1) AS n));
    END IF;
    RETURN NULL;
END
$$;
"""

# Inserted into ledger_hand_entry right after its repeat lookup: a repeat answers as before, anything else must be
# exactly what its event moves.
_CHECK = r"""
    v_moves := public.ledger_event_moves(p_table, p_cause);
    SELECT coalesce(jsonb_agg(jsonb_build_array(l.party, l.amount) ORDER BY l.party NULLS FIRST, l.amount),
                    '[]'::jsonb)
      INTO v_claimed FROM unnest(p_parties, p_amounts) AS l (party, amount);
    SELECT coalesce(jsonb_agg(jsonb_build_array((e ->> 0)::bigint, (e ->> 1)::bigint) ORDER BY (e ->> 0)::bigint),
                    '[]'::jsonb)
      INTO v_claimed_nets FROM jsonb_array_elements(p_nets) AS e;
    IF v_moves IS NULL OR v_moves ->> 'kind' <> p_kind OR v_moves -> 'legs' <> v_claimed
            OR (p_kind = 'stake_reserve' AND v_moves -> 'banker' <> coalesce(to_jsonb(p_banker), 'null'::jsonb))
            OR (p_kind = 'hand_settlement' AND v_moves -> 'nets' <> v_claimed_nets) THEN
        RAISE EXCEPTION 'ledger_hand_entry refused: % is not what its stored event moves', p_cause
            USING ERRCODE = 'check_violation',
                  DETAIL = format('derived: %s; claimed: %s, nets %s', coalesce(v_moves::text, 'no chip event'),
                                  v_claimed, v_claimed_nets);
    END IF;
"""
_ANCHOR = "            'id', v_existing.id);\n    END IF;\n"


def _derived_hand_entry() -> str:
    """0005's pinned ``ledger_hand_entry`` with the event check, SECURITY DEFINER."""
    function = _PINNED._pinned(_PINNED._HAND_ENTRY_0004)
    assert function.count(_ANCHOR) == 1 and function.count("DECLARE\n") == 1
    function = function.replace(_ANCHOR, _ANCHOR + _CHECK, 1)
    function = function.replace(
        "DECLARE\n", "DECLARE\n    v_moves jsonb;\n    v_claimed jsonb;\n    v_claimed_nets jsonb;\n", 1
    )
    return function.replace(f"LANGUAGE plpgsql VOLATILE {PATH}", f"LANGUAGE plpgsql VOLATILE SECURITY DEFINER {PATH}")


FORWARD = MOVES + _derived_hand_entry()
REVERSE = (
    _PINNED._pinned(_PINNED._HAND_ENTRY_0004)
    + "\nALTER FUNCTION public.ledger_hand_entry(text, text, text, text, bigint, bigint, bigint, jsonb, bigint, "
    "bigint[], bigint[], jsonb) SECURITY INVOKER;\nDROP FUNCTION public.ledger_event_moves(bigint, text);\n"
)


class Migration(migrations.Migration):
    dependencies = [("tables", "0016_key_in_service"), ("ledger", "0006_bankroll_sweep")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
