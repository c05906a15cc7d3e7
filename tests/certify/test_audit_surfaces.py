"""The stored audit's surfaces: the admin's page (staff only, read-only), the monthly CSV, and the metric with its
alert. The admin's rows and the CSV's come from one record (``certify.services.lab_row``): compared here."""

from __future__ import annotations

import csv
import html
import io
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone

from certify import monthly
from certify.models import AuditRun
from certify.services import audit_last_month, audit_period, tally_period
from certify.tasks import audit_last_month_task
from tests.certify.test_audit import counted_seeds, play  # noqa: F401 - the fixture, by name
from tests.support.play import make_players, make_table

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def run() -> AuditRun:
    table = make_table("classic", bank="house", min_bet=10, max_bet=10)
    play(table, 20)
    now = timezone.now()
    return audit_period(now - timedelta(hours=1), now + timedelta(hours=1))


def test_the_audit_on_two_processes_sums_exactly_what_one_process_does(run: AuditRun) -> None:
    table = make_table("italian", bank="house", min_bet=10, max_bet=10)
    play(table, 20)
    now = timezone.now()
    one = tally_period(now - timedelta(hours=1), now + timedelta(hours=1), workers=1)
    two = tally_period(now - timedelta(hours=1), now + timedelta(hours=1), workers=2)
    assert len(one) == 2 and one == two


def test_the_admin_page_shows_the_csv_rows_to_staff_read_only(run: AuditRun, as_auditor: Client, tmp_path) -> None:
    csv_path, _ = monthly.write(run, tmp_path / "month")
    (row,) = list(csv.DictReader(csv_path.open()))
    page = as_auditor.get(f"/admin/certify/auditrun/{run.pk}/change/")
    assert page.status_code == 200
    text = html.unescape(page.content.decode())
    for column in monthly.COLUMNS:
        assert f"<th>{column}</th>" in text
        if row[column]:
            assert f"<td>{row[column]}</td>" in text, column
    assert "Bonferroni" in text
    assert 'name="_save"' not in text  # nothing to change
    listing = as_auditor.get("/admin/certify/auditrun/")
    assert listing.status_code == 200 and b"none" in listing.content  # no flagged table
    assert as_auditor.post(f"/admin/certify/auditrun/{run.pk}/change/", {}).status_code == 403
    assert as_auditor.get("/admin/certify/auditrun/add/").status_code == 403


def test_the_monthly_command_stores_the_audit_and_writes_the_report(run: AuditRun, tmp_path) -> None:
    out = io.StringIO()
    day = timezone.now().date()  # UTC, as the command reads dates
    start, end = f"{day - timedelta(days=1)}", f"{day + timedelta(days=1)}"
    call_command("game_audit", "--start", start, "--end", end, "--out", str(tmp_path / "m"), stdout=out)
    latest = AuditRun.objects.order_by("-id").first()
    assert latest is not None and latest.pk != run.pk and latest.hands == run.hands == 20
    assert "20 hands audited" in out.getvalue() and "flagged tables: none" in out.getvalue()
    assert (tmp_path / "m.csv").read_text().splitlines()[0] == ",".join(monthly.COLUMNS)
    with pytest.raises(CommandError):
        call_command("game_audit")  # no period


def test_beat_audits_last_month_once(run: AuditRun, settings) -> None:
    assert settings.CELERY_BEAT_SCHEDULE["audit-last-month"]["task"] == "certify.audit_last_month"
    a_month_on = timezone.now() + timedelta(days=32)  # "last month" is then this month, the fixture's hands in it
    monthly_run = audit_last_month(a_month_on)
    assert monthly_run is not None and monthly_run.hands == run.hands == 20
    assert monthly_run.period_start.day == 1 and monthly_run.period_end.day == 1 and monthly_run.tables == []
    assert audit_last_month(a_month_on) is None  # audited already
    first = audit_last_month_task()  # the task, now: last month has no hands here, and is audited once
    assert AuditRun.objects.get(pk=first).hands == 0 and audit_last_month_task() is None


def test_a_player_cannot_read_the_audit(run: AuditRun) -> None:
    (player,) = make_players(1, chips=0, prefix="nosy")
    client = Client()
    client.force_login(player)
    response = client.get(f"/admin/certify/auditrun/{run.pk}/change/")
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_the_metric_counts_the_tables_the_latest_audit_flagged(settings, client: Client) -> None:
    settings.METRICS_TOKEN, settings.METRICS_ALLOW_IPS = "audit-test", []

    def scrape() -> str:
        return client.get("/metrics", HTTP_AUTHORIZATION="Bearer audit-test").content.decode()

    assert "casino_audit_flagged_tables -1.0" in scrape()  # never audited
    now = timezone.now()
    AuditRun.objects.create(period_start=now, period_end=now, flagged_tables=[])
    assert "casino_audit_flagged_tables 0.0" in scrape()
    AuditRun.objects.create(period_start=now, period_end=now, flagged_tables=[7, 9])
    assert "casino_audit_flagged_tables 2.0" in scrape()  # the alert CasinoAuditFlaggedTable fires above 0
