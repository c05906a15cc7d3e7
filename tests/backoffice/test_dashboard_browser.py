"""The operator's dashboard (the admin's home page) in a real headless browser, on the demo data with hands
played, a timeout, a dispute, a failed verification and a reconciliation: every figure equals what the ledger
and the read models say, the page loads nothing but the test server, and a screenshot is kept
(``artifacts/admin/dashboard.png``)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db.models import Sum
from django.test.utils import CaptureQueriesContext

from backoffice.models import ReconcileRun, VerificationFailure
from devtools.demo import DEMO_AUDITOR
from ledger.models import Balance, Posting
from tables import disputes, services
from tables.models import Event, Hand, Table
from tests.backoffice.test_admin_browser import _shot
from tests.conftest import owner_cursor
from tests.support.ops_helpers import offline
from tests.support.play import play_hands, state_of
from tests.support.staff import staff_user

pytestmark = pytest.mark.django_db(transaction=True)
DEMO_PASSWORD = "dashboard-demo-2026"


def _demo_casino() -> dict[str, Any]:
    """seed_demo, then hands at the house table and at a player-bank table, a timeout, a dispute, a tampered
    hand found by verify_hands, and a reconciliation."""
    from django.contrib.auth import get_user_model

    call_command("seed_demo", "--password", DEMO_PASSWORD, stdout=open("/dev/null", "w"))  # noqa: SIM115
    users = {u.username: u for u in get_user_model().objects.filter(username__in=["alice", "bob", "carol", "dave"])}
    house = Table.objects.get(name="Classic (house bank)")
    italian = Table.objects.get(name="Sette e mezzo")
    rng = random.Random(1919)
    play_hands(house, [users["alice"], users["bob"]], 5, rng)
    play_hands(italian, [users["bob"], users["carol"], users["dave"]], 3, rng)

    hetedfel = Table.objects.get(name="Hetedfél")
    services.table_sit(table_id=hetedfel.pk, user=users["alice"])
    services.table_sit(table_id=hetedfel.pk, user=users["dave"])
    waiting = state_of(hetedfel.pk)
    if waiting.awaiting is not None:
        deadline = waiting.awaiting.deadline_ms + 1  # play the clock forward to the betting deadline
        services.table_timeout(table_id=hetedfel.pk, version=waiting.version, now_ms=deadline)

    disputed = Hand.objects.filter(table=house, status="settled").order_by("number").first()
    disputes.hand_dispute_open(hand_id=disputed.pk, user=users["alice"], reason="I stood on seven and a half")

    tampered = Hand.objects.filter(table=italian, status="settled").order_by("number").first()
    with owner_cursor(triggers_off=("tables_event",)) as cursor:
        cursor.execute(
            'UPDATE tables_event SET metadata = metadata || \'{"request_id": "forged"}\' '
            "WHERE stream_id = %s AND version = %s",
            [italian.pk, tampered.opened_version + 1],
        )
    with pytest.raises(CommandError):
        call_command("verify_hands", "--all", "--progress", "off", stdout=open("/dev/null", "w"))  # noqa: SIM115
    call_command("reconcile", "--progress", "off", stdout=open("/dev/null", "w"))  # noqa: SIM115
    return {"house": house, "italian": italian, "tampered": tampered}


def _value(page: Any, selector: str) -> int:
    return int(page.get_attribute(selector, "data-value"))


def test_the_dashboard_shows_the_casino_as_the_ledger_and_read_models_say(page, live_server):
    demo = _demo_casino()
    _served, blocked = offline(page, live_server)
    page.goto(f"{live_server.url}/admin/login/?next=/admin/")
    page.fill("#id_username", DEMO_AUDITOR)
    page.fill("#id_password", DEMO_PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_selector("#dashboard")

    # tables by phase, hands in play (read models)
    assert _value(page, "#tile-tables .figure") == Table.objects.count() == 5
    for phase in Table.objects.values_list("phase", flat=True).distinct():
        shown = int(page.get_attribute(f"#tile-tables [data-phase='{phase}']", "data-value"))
        assert shown == Table.objects.filter(phase=phase).count()
    assert _value(page, "#tile-in-play .figure") == Hand.objects.filter(status="in_play").count()

    # chips, against the ledger's balance rows summed directly
    def total(kind: str) -> int:
        return int(Balance.objects.filter(kind=kind).aggregate(s=Sum("balance"))["s"] or 0)

    assert _value(page, "#chips-wallets") == total("wallet")
    assert _value(page, "#chips-escrow") == total("escrow")
    assert _value(page, "#chips-bankroll") == total("bankroll")
    assert _value(page, "#chips-issued") == -total("cage") == 4 * 1000
    assert _value(page, "#chips-with-players") == total("wallet") + total("escrow")

    # the house's net over 30 days: what the bankrolls gained over the settled house hands' entries
    settled = list(Hand.objects.filter(table=demo["house"], status="settled").values_list("pk", flat=True))
    bankroll_gain = Posting.objects.filter(account__kind="bankroll", transaction__hand_id__in=settled).aggregate(
        s=Sum("amount")
    )["s"]
    assert _value(page, "#tile-net-30 .figure") == bankroll_gain
    assert _value(page, "#tile-net-today .figure") == bankroll_gain  # every hand was played today
    assert _value(page, "#net-totals [data-series='classic · house bank']") == bankroll_gain
    bars = page.locator("#chart-house-net-per-day rect[data-series]")
    assert sum(float(v) for v in bars.evaluate_all("els => els.map(e => e.dataset.value)")) == bankroll_gain

    # hands per hour, by preset and bank
    assert (
        _value(page, "#hands-totals [data-series='classic · house bank']")
        == Hand.objects.filter(table=demo["house"]).count()
    )
    assert (
        _value(page, "#hands-totals [data-series='italian · player bank']")
        == Hand.objects.filter(table=demo["italian"]).count()
    )
    lines = page.locator("#chart-hands-per-hour polyline[data-series]")
    assert lines.count() == Hand.objects.values_list("preset", "house_banked").distinct().count()

    # timeouts per hour: the timeout commands of the last 24 hours
    timeouts = Event.objects.filter(metadata__reason="timeout", metadata__has_key="command").count()
    assert timeouts >= 1
    bars = page.locator("#chart-timeouts-per-hour rect[data-series]")
    assert sum(float(v) for v in bars.evaluate_all("els => els.map(e => e.dataset.value)")) == timeouts

    # open disputes, verification failures, the last reconciliation
    assert _value(page, "#tile-disputes .figure") == 1
    assert page.locator("#panel-disputes a[href*='/admin/tables/dispute/']").count() == 1
    failures = VerificationFailure.objects.all()
    assert failures.filter(hand_id=demo["tampered"].pk, source="verify_hands").exists()
    assert _value(page, "#tile-failures .figure") == failures.count() >= 1
    assert demo["tampered"].pk in [
        int(href.rsplit("/", 3)[-3])
        for href in page.locator("#panel-failures a").evaluate_all("els => els.map(e => e.getAttribute('href'))")
    ]
    assert page.get_attribute("#tile-reconcile .figure", "data-ok") == "true"
    assert ReconcileRun.objects.get().ok

    assert blocked == [], f"the dashboard reached out of the server: {blocked}"
    _shot(page, "dashboard.png", full_page=True)


def test_the_dashboard_is_a_dozen_indexed_statements_and_hidden_from_players(client, django_user_model):
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    from django.db import connection

    client.force_login(django_user_model.objects.get(username=DEMO_AUDITOR))
    with CaptureQueriesContext(connection) as captured:
        response = client.get("/admin/")
    assert response.status_code == 200 and 'id="dashboard"' in response.content.decode()
    assert len(captured.captured_queries) <= 20, [q["sql"] for q in captured.captured_queries]

    staff_without_role = staff_user("clerk", None, password="x" * 12)
    client.force_login(staff_without_role)
    assert 'id="dashboard"' not in client.get("/admin/").content.decode()
