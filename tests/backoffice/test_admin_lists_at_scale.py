"""The admin's big lists (events, hands, transactions, postings) stay fast at hundreds of thousands of rows: no
exact ``COUNT(*)``, a small statement budget per page, and no sequential scan of a big table on any page or
filter (every statement is EXPLAINed on the loaded tables).

The rows are bulk-inserted with ``generate_series`` by the owner of the tables (the posting triggers, which keep
the balances, are off for that one transaction: these rows only need to exist, not to reconcile)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tables.models import Table
from tests.conftest import owner_cursor
from tests.support.play import make_players, make_table

pytestmark = pytest.mark.django_db(transaction=True)

EVENTS = 200_000
HANDS = 150_000
TRANSACTIONS = 70_000  # three postings each
TABLES = 20
BIG_TABLES = ("tables_event", "tables_hand", "ledger_posting", "ledger_transaction")
STATEMENT_BUDGET = 12  # session, user, the page's rows (+1 to see a next page), prefetches, the estimate


@pytest.fixture
def loaded() -> dict[str, Any]:
    tables = [make_table(("classic", "italian", "spanish", "hungarian")[i % 4]) for i in range(TABLES)]
    players = make_players(3, prefix="scale")
    ids = [t.pk for t in tables]
    with owner_cursor(triggers_off=("ledger_posting", "ledger_transaction")) as cursor:
        cursor.execute(
            """INSERT INTO tables_event (stream_id, version, type, data, metadata, recorded_at, prev_hash, hash)
               SELECT (%s::bigint[])[1 + i %% %s], 1000 + i / %s,
                      (ARRAY['CardDealt','BetPlaced','HandSettled'])[1 + i %% 3], '{}'::jsonb, '{"actor": null}'::jsonb,
                      now() - i * interval '1 second', repeat('0', 64), repeat('1', 64)
               FROM generate_series(1, %s) AS i""",
            [ids, TABLES, TABLES, EVENTS],
        )
        cursor.execute(
            """INSERT INTO tables_hand (table_id, number, preset, status, opened_version, opened_at, settled_at,
                                        seed_commitment, banker_username, house_banked, banker_net, disputed,
                                        start_schema, verified_ok)
               SELECT (%s::bigint[])[1 + i %% %s], 1000 + i / %s,
                      (ARRAY['classic','italian','spanish','hungarian'])[1 + i %% 4],
                      CASE WHEN i %% 5000 = 0 THEN 'in_play' ELSE 'settled' END, 1, now() - i * interval '10 seconds',
                      now() - i * interval '10 seconds', repeat('c', 64), '', i %% 2 = 0, (i %% 7) - 3,
                      i %% 10000 = 0, '', CASE WHEN i %% 20000 = 0 THEN false END
               FROM generate_series(1, %s) AS i""",
            [ids, TABLES, TABLES, HANDS],
        )
        cursor.execute("SELECT id FROM ledger_account WHERE user_id = ANY(%s) ORDER BY id", [[p.pk for p in players]])
        accounts = [row[0] for row in cursor.fetchall()]
        cursor.execute(
            """WITH tx AS (
                 INSERT INTO ledger_transaction (kind, memo, cause, fingerprint, details)
                 SELECT 'correction', 'bulk', 'scale:' || i, 'f', '{}'::jsonb FROM generate_series(1, %s) AS i
                 RETURNING id)
               INSERT INTO ledger_posting (transaction_id, account_id, amount, balance_after)
               SELECT tx.id, (%s::bigint[])[leg], CASE leg WHEN 1 THEN 2 ELSE -1 END, 0
               FROM tx CROSS JOIN generate_series(1, 3) AS leg""",
            [TRANSACTIONS, accounts],
        )
        for table in BIG_TABLES:
            cursor.execute(f"ANALYZE {table}")
    return {"table": tables[3], "account": accounts[0]}


def _explain(sql: str) -> str:
    """The plan of ``sql`` with sequential scans priced out: a ``Seq Scan`` left in it means no index can serve the
    statement (on a partition where one table's rows are most of it, the planner may otherwise rightly prefer a
    scan, which says nothing about the indexes)."""
    with connection.cursor() as cursor:
        cursor.execute("SET enable_seqscan = off")
        try:
            cursor.execute("EXPLAIN " + sql)
            return "\n".join(row[0] for row in cursor.fetchall())
        finally:
            cursor.execute("RESET enable_seqscan")


COUNT = re.compile(r"\bCOUNT\s*\(", re.IGNORECASE)


def test_the_big_lists_answer_within_a_statement_budget_without_counting_or_scanning(loaded, as_superuser):
    """Every big list, unfiltered and with each filter, paged."""
    assert Table.objects.count() == TABLES
    table = loaded["table"].pk
    pages = [
        "/admin/tables/event/",
        "/admin/tables/event/?p=3",
        f"/admin/tables/event/?table={table}",
        f"/admin/tables/event/?table={table}&p=2",
        "/admin/tables/event/?type=BetPlaced",
        "/admin/tables/hand/",
        "/admin/tables/hand/?p=2",
        "/admin/tables/hand/?preset=spanish",
        "/admin/tables/hand/?status=in_play",
        "/admin/tables/hand/?disputed__exact=1",
        "/admin/tables/hand/?verified=failed",
        f"/admin/tables/hand/?table__id__exact={table}",
        "/admin/tables/hand/?outcome=banker_won",
        "/admin/tables/hand/?rules=unknown",  # (every page lists the rules releases: an index probe each)
        "/admin/ledger/transaction/",
        "/admin/ledger/posting/",
        f"/admin/ledger/posting/?account__id__exact={loaded['account']}",
    ]
    for url in pages:
        with CaptureQueriesContext(connection) as captured:
            response = as_superuser.get(url)
        assert response.status_code == 200, url
        statements = [q["sql"] for q in captured.captured_queries]
        assert len(statements) <= STATEMENT_BUDGET, (url, len(statements), statements)
        for sql in statements:
            touches_big_table = any(f'"{name}"' in sql for name in BIG_TABLES)
            if not touches_big_table:
                continue
            if COUNT.search(sql):  # only the bounded count: at most ADMIN_EXACT_COUNT_UP_TO + 1 rows read
                assert re.search(r"LIMIT \d+\s*\)\s*subquery", sql, re.I), (url, sql)
            if sql.lstrip().upper().startswith("EXPLAIN"):
                continue
            plan = _explain(sql)
            for name in BIG_TABLES:
                assert f"Seq Scan on {name}" not in plan, (url, sql, plan)
        body = response.content.decode()
        # the estimated count is shown as one; a filter with few rows is counted exactly
        assert "about " in body or "estimated-count" not in body, url
        assert 'id="result_list"' in body, url

    # a filter the planner may misjudge still shows one page at a time, with a next page, and a page past the
    # end is empty rather than an error (above ADMIN_EXACT_COUNT_UP_TO rows: the count is an estimate)
    first = as_superuser.get(f"/admin/tables/event/?table={table}")
    rows = first.content.decode().count('class="field-version"')
    assert rows == 100  # one page, however many the estimate says
    assert "next-page" in first.content.decode()
    past_the_end = as_superuser.get(f"/admin/tables/event/?table={table}&p=100000")
    assert past_the_end.status_code == 200 and 'class="field-version"' not in past_the_end.content.decode()
