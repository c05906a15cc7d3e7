"""The admin shows a player-bank table's simulated return to player: "computing" at first, the figure once a real
Celery worker ran the simulation; one figure per rule set (cached in the database), read-only everywhere. (A
house bank's figure is exact: tests/tables/admin/test_admin_rtp.py.)"""

from __future__ import annotations

import re
import socket
import uuid
from fractions import Fraction

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from lab.models import DONE, HouseEdge
from tables.worth import percent
from tests.conftest import celery_worker_args, child_database_url, wait_for
from tests.support.play import make_table

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def edge_queue(settings) -> str:
    """A queue of this test's own; the figure is asked for (HOUSE_EDGE_TASKS) with a small simulation."""
    name = f"lab-{uuid.uuid4().hex[:12]}"
    settings.HOUSE_EDGE_TASKS = True
    settings.HOUSE_EDGE_QUEUE = name
    settings.HOUSE_EDGE_HANDS = 2_000
    return name


@pytest.fixture
def lab_worker(spawn, child_env, edge_queue):
    def start():
        env = {**child_env, "DATABASE_URL": child_database_url()}
        worker = spawn(
            celery_worker_args(edge_queue, pool="prefork", concurrency=1, hostname=f"{edge_queue}@%h"), env=env
        )
        from casino.celery import app

        assert wait_for(
            lambda: app.control.ping(destination=[f"{edge_queue}@{socket.gethostname()}"], timeout=0.5), 60
        ), "the worker did not come up"
        return worker

    return start


def _page(client, table) -> str:
    response = client.get(f"/admin/tables/table/{table.pk}/change/")
    assert response.status_code == 200
    return response.content.decode()


def test_the_table_page_shows_computing_then_the_figure_computed_by_a_real_worker(as_operator, as_auditor, lab_worker):
    table = make_table("classic", bank="player", rules={"tie_rule": "push"})
    page = _page(as_operator, table)
    assert "return to player" in page.lower() and 'data-status="computing"' in page
    row = HouseEdge.objects.get()
    assert row.status == "computing" and row.rules["tie_rule"] == "push" and row.bank == "player"
    worker = lab_worker()  # the task was enqueued before the worker existed: it waits in Redis
    assert wait_for(lambda: HouseEdge.objects.filter(status=DONE).exists(), 240), "the task never ran"
    assert worker.poll() is None
    row.refresh_from_db()
    assert row.rounds == 2_000 and 0 < row.half_width < 0.1 and -0.5 < row.edge < 0.5

    # a figure still computing is read again at most every tables.worth._PENDING_TTL_S (10 s) in a process
    def known_page() -> str | None:
        page = _page(as_auditor, table)
        return page if 'data-status="known"' in page else None

    page = wait_for(known_page, 30)
    assert page and "95% interval" in page and "2,000 rounds of 4 punters" in page
    text = re.sub(r"<[^>]+>", "", page)  # the figure is set in bold
    assert f"{percent(1 - Fraction(row.edge))} ± {percent(Fraction(row.half_width))}" in text
    # the same rule set at another table (other limits) shares the figure ...
    twin = make_table("classic", bank="player", rules={"tie_rule": "push"}, min_bet=1, max_bet=500)
    assert 'data-status="known"' in _page(as_operator, twin) and HouseEdge.objects.count() == 1
    # ... another rule set gets its own
    other = make_table("italian", bank="player")
    assert 'data-status="computing"' in _page(as_operator, other)
    assert HouseEdge.objects.count() == 2
    assert wait_for(lambda: HouseEdge.objects.filter(status=DONE).count() == 2, 240)


def test_creating_a_table_in_the_admin_asks_for_its_edge(as_operator, edge_queue):
    body = {
        "name": "Sala Lab",
        "preset": "hungarian",
        "bank": "player",
        "min_bet": "10",
        "max_bet": "10",
        "max_seats": "4",
        "fixed_stake": "10",
        "turn_timeout_s": "20",
        "betting_timeout_s": "20",
    }
    response = as_operator.post("/admin/tables/table/add/", body)
    assert response.status_code == 302, response.content.decode()[:2000]
    row = HouseEdge.objects.get()
    assert (row.preset, row.bank, row.status) == ("hungarian", "player", "computing")
    assert row.spec["punters"] == 4 and row.spec["banker"] == "watcher"


def test_the_house_edge_list_is_read_only_and_filters_by_status(as_operator, superuser):
    from tests.support.admin_fixtures import signed_in

    row = HouseEdge.objects.create(
        key="k" * 64, preset="classic", bank="house", rules={}, spec={}, requested_at=timezone.now()
    )
    for client in (as_operator, signed_in(superuser)):
        listing = client.get("/admin/lab/houseedge/?status__exact=computing")
        assert listing.status_code == 200 and "classic" in listing.content.decode()
        assert client.get("/admin/lab/houseedge/add/").status_code == 403
        page = client.get(f"/admin/lab/houseedge/{row.pk}/change/").content.decode()
        assert 'name="_save"' not in page and "computing" in page
        assert client.post(f"/admin/lab/houseedge/{row.pk}/delete/", {"post": "yes"}).status_code == 403
    assert HouseEdge.objects.filter(pk=row.pk).exists()


def test_the_database_refuses_a_figure_marked_done_without_its_numbers():
    row = HouseEdge.objects.create(
        key="d" * 64, preset="classic", bank="house", rules={}, spec={}, requested_at=timezone.now()
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        HouseEdge.objects.filter(pk=row.pk).update(status=DONE)
    with pytest.raises(IntegrityError), transaction.atomic():
        HouseEdge.objects.filter(pk=row.pk).update(status="guessed")
