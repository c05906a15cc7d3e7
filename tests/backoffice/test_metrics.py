"""GET /metrics: off by default, then only for the token or an allowed address; the command, timeout and
database figures; and real gunicorn workers adding up their counters (prometheus-client's multiprocess mode)."""

from __future__ import annotations

import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.core.management import call_command
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from backoffice.models import VerificationFailure
from kit import metrics
from rules import DomainError
from tables import services
from tables.errors import TimeoutNotDue
from tests.conftest import celery_worker_args, child_database_url, free_port, wait_for
from tests.support.play import make_players, make_table, state_of

pytestmark = pytest.mark.django_db


def _sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_metrics_are_off_unless_a_token_or_an_address_is_configured(client, settings):
    settings.METRICS_TOKEN = ""
    settings.METRICS_ALLOW_IPS = []
    assert client.get("/metrics").status_code == 404


def test_the_token_opens_the_metrics_and_nothing_else_does(client, settings):
    settings.METRICS_TOKEN = "scrape-me-4f2b"
    settings.METRICS_ALLOW_IPS = []
    assert client.get("/metrics").status_code == 403
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 403
    assert client.get("/metrics", HTTP_AUTHORIZATION="Token scrape-me-4f2b").status_code == 403
    response = client.get("/metrics", HTTP_AUTHORIZATION="Bearer scrape-me-4f2b")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/plain")
    body = response.content.decode()
    for name in (  # declared, with or without samples yet
        "casino_commands",
        "casino_command_seconds",
        "casino_command_statements",
        "casino_timeouts_fired",
        "casino_sweeper_catchups",
        "casino_open_waits",
        "casino_open_sockets",
        "casino_verification_failures_total",
        "casino_ledger_reconcile_ok",
        "casino_tables",
    ):
        assert f"# HELP {name}" in body, name


def test_an_allowed_network_may_scrape_and_another_may_not(client, settings):
    settings.METRICS_TOKEN = ""
    settings.METRICS_ALLOW_IPS = ["127.0.0.1", "10.8.0.0/16"]
    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="10.8.3.4").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="10.9.0.1").status_code == 403
    assert client.get("/metrics", REMOTE_ADDR="10.9.0.1", HTTP_X_FORWARDED_FOR="127.0.0.1").status_code == 403


def test_commands_are_counted_by_type_and_outcome_with_latency_and_statements():
    table = make_table("classic")
    players = make_players(3, prefix="met")
    before_sits = _sample("casino_commands_total", type="SitDown", outcome="ok")
    before_count = _sample("casino_command_statements_count", type="SitDown")
    before_sum = _sample("casino_command_statements_sum", type="SitDown")
    for user in players:
        services.table_sit(table_id=table.pk, user=user)
    assert _sample("casino_commands_total", type="SitDown", outcome="ok") == before_sits + 3
    assert _sample("casino_command_statements_count", type="SitDown") == before_count + 3
    assert _sample("casino_command_statements_sum", type="SitDown") - before_sum >= 3 * 3  # load, wallets, append...
    assert _sample("casino_command_seconds_count", type="SitDown") >= 3

    refused_before = _sample("casino_commands_total", type="SitDown", outcome="already_seated")
    with pytest.raises(DomainError) as refused:
        services.table_sit(table_id=table.pk, user=players[0])
    assert _sample("casino_commands_total", type="SitDown", outcome=refused.value.code) == refused_before + 1 or (
        refused.value.code != "already_seated"
    )

    not_due = _sample("casino_commands_total", type="Timeout", outcome="not_due")
    fired = _sample("casino_commands_total", type="Timeout", outcome="ok")
    state = state_of(table.pk)
    assert state.awaiting is not None
    with pytest.raises(TimeoutNotDue):  # a timer delivered early: counted apart, not as an error
        services.table_timeout(table_id=table.pk, version=state.version)
    assert _sample("casino_commands_total", type="Timeout", outcome="not_due") == not_due + 1
    services.table_timeout(table_id=table.pk, version=state.version, now_ms=state.awaiting.deadline_ms + 1)
    assert _sample("casino_commands_total", type="Timeout", outcome="ok") == fired + 1


def test_database_figures_are_read_at_scrape_time(client, settings):
    settings.METRICS_TOKEN = "t"
    settings.METRICS_ALLOW_IPS = []

    def scrape() -> str:
        return client.get("/metrics", HTTP_AUTHORIZATION="Bearer t").content.decode()

    assert "casino_ledger_reconcile_ok -1.0" in scrape()  # never run
    call_command("reconcile", "--progress", "off", stdout=open("/dev/null", "w"))  # noqa: SIM115
    body = scrape()
    assert "casino_ledger_reconcile_ok 1.0" in body and "casino_ledger_reconcile_differences 0.0" in body
    VerificationFailure.objects.create(table_id=1, hand_id=2, hand_number=1, source="api", checks={"chain": "x"})
    assert "casino_verification_failures_total 1.0" in scrape()  # a count that only grows: a counter


def test_waits_and_sockets_gauges_follow_the_blocks_whatever_happens():
    before = _sample("casino_open_waits", kind="websocket")
    with pytest.raises(RuntimeError), metrics.track_wait("websocket"):
        assert _sample("casino_open_waits", kind="websocket") == before + 1
        raise RuntimeError("client went away")
    assert _sample("casino_open_waits", kind="websocket") == before
    with metrics.track_socket():
        assert _sample("casino_open_sockets") >= 1


@pytest.mark.django_db(transaction=True)
def test_gunicorn_workers_add_up_their_counters_in_one_scrape(spawn, child_env, tmp_path):
    """Two real gunicorn workers (multiprocess mode, casino.gunicorn_conf): every request counted once, whichever
    worker answered it and whichever answers the scrape."""
    port = free_port()
    env = {
        **child_env,
        "DATABASE_URL": child_database_url(),
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),
        "METRICS_ALLOW_IPS": "127.0.0.1",
    }
    spawn(
        [
            "-m",
            "gunicorn",
            "casino.wsgi:application",
            "-c",
            "python:casino.gunicorn_conf",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "2",
        ],
        env=env,
    )
    base = f"http://127.0.0.1:{port}"

    def healthy() -> bool:
        try:
            return urllib.request.urlopen(f"{base}/healthz", timeout=2).status == 200
        except OSError:
            return False

    assert wait_for(healthy, 60)
    requests = 40

    def get(_: int) -> int:
        return urllib.request.urlopen(f"{base}/healthz", timeout=10).status

    with ThreadPoolExecutor(8) as pool:  # concurrent clients: each sync worker serves one at a time, so both work
        assert set(pool.map(get, range(requests))) == {200}
    body = urllib.request.urlopen(f"{base}/metrics", timeout=10).read().decode()
    counted = next(
        sample.value
        for family in text_string_to_metric_families(body)
        for sample in family.samples
        if sample.name == "casino_http_requests_total"
        and sample.labels == {"route": "healthz", "method": "GET", "status": "2xx"}
    )
    assert counted >= requests + 1  # every request, whichever worker answered (+ the health checks before)
    assert len(list((tmp_path / "metrics").glob("counter_*.db"))) >= 2  # both workers wrote their own file


@pytest.mark.django_db(transaction=True)
def test_a_worker_container_serves_its_own_metrics_with_the_same_protection(spawn, child_env, tmp_path):
    port = free_port()
    env = {
        **child_env,
        "DATABASE_URL": child_database_url(),
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),
        "METRICS_WORKER_PORT": str(port),
        "METRICS_WORKER_ADDR": "127.0.0.1",
        "METRICS_TOKEN": "worker-secret",
    }
    spawn(celery_worker_args(f"metrics-{port}", pool="threads", concurrency=1), env=env)
    url = f"http://127.0.0.1:{port}/metrics"

    def status(headers: dict[str, str]) -> int:
        try:
            return urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=5).status
        except urllib.error.HTTPError as exc:
            return exc.code
        except OSError:
            return 0

    assert wait_for(lambda: status({}) == 403, 60)
    assert status({"Authorization": "Bearer nope"}) == 403
    request = urllib.request.Request(url, headers={"Authorization": "Bearer worker-secret"})
    body = urllib.request.urlopen(request, timeout=10).read().decode()
    assert "# HELP casino_sweeper_catchups" in body and "casino_ledger_reconcile_ok" in body
