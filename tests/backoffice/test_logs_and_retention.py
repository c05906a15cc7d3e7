"""Quiet, useful logs (one line per request and per task, with request id, user, table and outcome; nothing
from an idle sweeper; JSON when asked) and the retention of the API's idempotency records."""

from __future__ import annotations

import io
import json
import logging
import re
import time
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from backoffice.tasks import purge_idempotency, purge_idempotency_records
from kit.requestlog import JsonUTCFormatter
from kit.tokens import issue_token
from tables.models import Event, IdempotencyRecord, Table
from tables.tasks import sweep_timeouts
from tests.support.play import make_players, make_table

pytestmark = pytest.mark.django_db


def _records(caplog: pytest.LogCaptureFixture, logger: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == logger]


def test_each_request_logs_one_line_with_its_id_user_table_and_outcome(client, caplog):
    table = make_table("classic")
    (player,) = make_players(1, prefix="log")
    token = issue_token(player)
    caplog.set_level(logging.INFO)
    response = client.post(
        f"/api/v1/tables/{table.pk}/seats",
        data="{}",
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Token {token}",
        HTTP_X_REQUEST_ID="req-abc-123",
    )
    assert response.status_code in (200, 201), response.content
    assert response["X-Request-ID"] == "req-abc-123"
    (line,) = _records(caplog, "casino.request")
    assert line.request_id == "req-abc-123" and line.user == player.username
    assert str(line.table) == str(table.pk) and line.outcome == "ok" and line.command == "SitDown"
    message = line.getMessage()
    assert message.startswith(f"POST /api/v1/tables/{table.pk}/seats 20") and "request_id=req-abc-123" in message
    # the command's events carry the request id
    assert Event.objects.filter(table=table, metadata__request_id="req-abc-123").exists()

    caplog.clear()
    refused = client.post(
        f"/api/v1/tables/{table.pk}/seats",
        data="{}",
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Token {token}",
    )
    assert refused.status_code >= 400
    (line,) = _records(caplog, "casino.request")
    assert line.outcome == refused.json()["error"]["code"] and len(line.request_id) == 32  # a fresh id

    caplog.clear()
    client.get("/healthz")
    assert _records(caplog, "casino.request") == []  # probes are counted by the metrics, not logged


def test_a_request_id_that_is_not_a_sane_token_is_replaced(client):
    response = client.get("/healthz", HTTP_X_REQUEST_ID="bad id\nwith newline")
    assert response["X-Request-ID"] != "bad id\nwith newline" and len(response["X-Request-ID"]) == 32


def test_the_sweeper_logs_only_when_it_fires_something(caplog, settings):
    settings.TIMEOUT_SWEEP_GRACE_S = 0
    caplog.set_level(logging.INFO)
    sweep_timeouts.apply()
    assert _records(caplog, "casino.task") == []  # an idle casino writes nothing

    table = make_table("classic", betting_timeout_s=1)
    from tables import services

    for user in make_players(2, prefix="swp"):
        services.table_sit(table_id=table.pk, user=user)
    assert Table.objects.get(pk=table.pk).waiting_version is not None
    sweep_timeouts.apply()  # not due yet: still nothing
    assert _records(caplog, "casino.task") == []
    time.sleep(1.3)  # the betting time runs out (the timer task is off in the tests: the sweeper catches it)
    sweep_timeouts.apply()
    (line,) = _records(caplog, "casino.task")
    assert line.getMessage().startswith("tables.sweep_timeouts ") and line.fired == 1 and line.outcome == "fired"
    assert line.task_id


def test_every_periodic_task_is_silent_on_an_idle_casino(caplog, settings):
    """The README's console: nothing while the casino is idle. Every task beat sends, run on a casino with nothing
    to do, writes no line (the responsible-gaming sweep used to log every run, and the hourly reconciliation its
    "ok")."""
    from backoffice.tasks import reconcile_ledger
    from ledger.tasks import sweep_bankrolls
    from tables.tasks import release_idle_seats, responsible_sweep, sign_pending_checkpoints

    caplog.set_level(logging.INFO)
    for task in (
        sweep_timeouts,
        responsible_sweep,
        release_idle_seats,
        sign_pending_checkpoints,
        sweep_bankrolls,
        purge_idempotency_records,
        reconcile_ledger,
    ):
        task.apply()
        assert _records(caplog, "casino.task") == [], task.name


def test_a_timer_whose_table_moved_on_says_nothing(caplog):
    """A turn's timer fires long after the player acted (the usual case): it changes nothing and logs nothing."""
    from tables import services
    from tables.tasks import fire_timeout

    table = make_table("classic", betting_timeout_s=30)
    for user in make_players(2, prefix="mvd"):
        services.table_sit(table_id=table.pk, user=user)
    waiting = Table.objects.get(pk=table.pk).waiting_version
    assert waiting is not None
    user = make_players(1, prefix="mvd2")[0]
    services.table_sit(table_id=table.pk, user=user)  # the table moves on past the wait the timer was set for
    assert Table.objects.get(pk=table.pk).version > waiting
    caplog.set_level(logging.INFO)
    assert fire_timeout.apply(args=(table.pk, waiting)).get() == 0
    assert _records(caplog, "casino.task") == []


def test_json_log_format_carries_the_fields():
    assert settings.LOGGING["formatters"]["json"]["()"] == "kit.requestlog.JsonUTCFormatter"
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    config = settings.LOGGING["formatters"]["json"]
    handler.setFormatter(JsonUTCFormatter(config["fmt"], rename_fields=config["rename_fields"]))
    logger = logging.getLogger("casino.request.jsontest")
    logger.addHandler(handler)
    logger.propagate = False
    logger.warning("GET /x 200 request_id=r1", extra={"request_id": "r1", "user": "alice", "table": 7, "status": 200})
    record = json.loads(stream.getvalue())
    assert record["request_id"] == "r1" and record["user"] == "alice" and record["table"] == 7
    assert record["level"] == "WARNING" and record["logger"] == "casino.request.jsontest"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", record["time"]), record["time"]  # ISO 8601, UTC


def test_idempotency_records_are_purged_after_the_retention_and_only_then(settings):
    (user,) = make_players(1, chips=0, prefix="idem")
    old = [
        IdempotencyRecord.objects.create(user=user, key=f"old-{i}", fingerprint="f", status_code=201, response={})
        for i in range(7)
    ]
    fresh = IdempotencyRecord.objects.create(user=user, key="fresh", fingerprint="f", status_code=201, response={})
    settings.IDEMPOTENCY_RETENTION_HOURS = 24
    IdempotencyRecord.objects.filter(pk__in=[r.pk for r in old]).update(created_at=timezone.now() - timedelta(hours=25))
    assert purge_idempotency(batch=3) == 7  # in batches of 3
    assert list(IdempotencyRecord.objects.values_list("pk", flat=True)) == [fresh.pk]
    assert purge_idempotency_records.apply().get() == 0


def test_beat_runs_the_purge_and_the_reconciliation():
    schedule = settings.CELERY_BEAT_SCHEDULE
    assert schedule["purge-idempotency-records"]["task"] == "casino.purge_idempotency_records"
    assert schedule["reconcile-ledger"]["task"] == "casino.reconcile_ledger"
