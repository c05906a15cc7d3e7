"""What an operator alerts on (issue 32): the Prometheus alert rules and the Grafana dashboard in docker/monitoring/
name only metrics a real scrape of /metrics has; the metrics follow Prometheus's conventions (``_total`` counters,
route templates as labels, never paths); Celery's queue depth, the database pool, the processes' heartbeats and
the process metrics are there."""

from __future__ import annotations

import json
import re
import secrets
import time
import urllib.request

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from kit import heartbeat
from tests.conftest import ROOT, child_database_url, free_port, wait_for

pytestmark = pytest.mark.django_db

MONITORING = ROOT / "docker" / "monitoring"
ALERTS = yaml.safe_load((MONITORING / "prometheus-alerts.yml").read_text())
DASHBOARD = json.loads((MONITORING / "grafana-dashboard.json").read_text())
PROMQL_WORDS = {
    "sum", "rate", "increase", "histogram_quantile", "time", "by", "and", "or", "on", "unless", "without", "max", "min",
    "avg", "count", "le",
}  # fmt: skip


def alert_expressions() -> list[str]:
    return [rule["expr"] for group in ALERTS["groups"] for rule in group["rules"]]


def dashboard_expressions() -> list[str]:
    return [target["expr"] for panel in DASHBOARD["panels"] for target in panel["targets"]]


def metric_names(expression: str) -> set[str]:
    """The metric names of a PromQL expression (label matchers, grouping labels, ranges and strings removed)."""
    text = re.sub(r'"[^"]*"', "", expression)
    text = re.sub(r"\{[^}]*\}", "", text)
    text = re.sub(r"\[[^\]]*\]", "", text)
    text = re.sub(r"\b(by|without|on)\s*\([^)]*\)", "", text)
    names = set(re.findall(r"[A-Za-z_:][A-Za-z0-9_:]*", text)) - PROMQL_WORDS
    return {n for n in names if not re.fullmatch(r"e\d+", n)}  # 1.5e9


def exposed_names(body: str) -> set[str]:
    """Every series name a scrape can have: samples, and the declared families without samples yet."""
    names: set[str] = set()
    for family in text_string_to_metric_families(body):
        names.update(sample.name for sample in family.samples)
        suffixes = {"counter": ("_total",), "histogram": ("_bucket", "_sum", "_count"), "summary": ("_sum", "_count")}
        names.update(family.name + suffix for suffix in suffixes.get(family.type, ("",)))
    return names


@pytest.fixture
def scrape(client, settings):
    settings.METRICS_TOKEN = "monitoring-test"
    settings.METRICS_ALLOW_IPS = []
    settings.HEARTBEAT_PREFIX = f"casino:test-monitoring:{id(settings)}:"

    def get() -> str:
        client.get("/api/v1/tables")  # a request, so the route-labelled series have a sample
        response = client.get("/metrics", HTTP_AUTHORIZATION="Bearer monitoring-test")
        assert response.status_code == 200
        return response.content.decode()

    return get


def test_every_metric_the_alert_rules_name_exists(scrape):
    exposed = exposed_names(scrape())
    named = set().union(*(metric_names(e) for e in alert_expressions()))
    assert named, "no metric found in the alert rules"
    assert named <= exposed, f"alert rules name metrics that do not exist: {sorted(named - exposed)}"


def test_every_metric_the_dashboard_names_exists(scrape):
    exposed = exposed_names(scrape())
    named = set().union(*(metric_names(e) for e in dashboard_expressions()))
    assert len(DASHBOARD["panels"]) >= 10
    assert named <= exposed, f"the dashboard names metrics that do not exist: {sorted(named - exposed)}"


def test_the_alert_rules_and_the_docs_agree():
    """docs/operations.md points at the rules file instead of keeping a second copy that drifts."""
    docs = (ROOT / "docs" / "operations.md").read_text()
    assert "docker/monitoring/prometheus-alerts.yml" in docs and "docker/monitoring/grafana-dashboard.json" in docs
    for group in ALERTS["groups"]:
        for rule in group["rules"]:
            assert rule["labels"]["severity"] in {"page", "ticket"}, rule["alert"]


def test_counters_end_in_total_and_nothing_else_does(scrape):
    for family in text_string_to_metric_families(scrape()):
        for sample in family.samples:
            if family.type == "counter" and not sample.name.endswith("_created"):
                assert sample.name.endswith("_total"), sample.name
            elif family.type == "gauge":
                assert not sample.name.endswith("_total"), f"{sample.name}: a gauge named like a counter"


def test_requests_are_labelled_by_route_template_never_by_path(scrape, client):
    client.get("/api/v1/tables/123456")
    client.get("/no/such/page/987654")
    body = scrape()
    routes = {
        sample.labels["route"]
        for family in text_string_to_metric_families(body)
        for sample in family.samples
        if sample.name in {"casino_http_requests_total", "casino_http_request_seconds_count"}
    }
    assert any(r.startswith("api/v1/tables/<") and r.endswith(":table_id>") for r in routes), routes
    assert "unmatched" in routes
    assert not any("123456" in r or "987654" in r for r in routes), routes


def test_queue_depth_pool_processes_and_heartbeats_are_exposed(scrape, settings):
    from celery import current_app

    heartbeat.beat("worker")
    with current_app.connection_for_write() as connection:  # a message nobody consumes: the depth says 1 more
        queue = f"monitoring-test-{id(settings)}"
        settings.HOUSE_EDGE_QUEUE = queue
        connection.default_channel.client.lpush(queue, b"{}")
        try:
            families = {f.name: f for f in text_string_to_metric_families(scrape())}
        finally:
            connection.default_channel.client.delete(queue)
    depth = {s.labels["queue"]: s.value for s in families["casino_celery_queue_length"].samples}
    assert depth[queue] == 1 and "celery" in depth
    up = {s.labels["kind"]: s.value for s in families["casino_process_up"].samples}
    assert up["worker"] == 1 and up["beat"] == 0 and up["signer"] == 0
    for name in ("casino_celery_unacked_messages", "process_resident_memory_bytes", "process_cpu_seconds"):
        assert name in families, name
    for name in ("casino_db_pool_connections", "casino_db_pool_requests_waiting", "casino_db_pool_errors"):
        assert name in families, name  # declared; their values come from the pooled processes (not the tests')


@pytest.mark.django_db(transaction=True)
def test_a_pooled_gunicorn_reports_its_pool_and_process_in_one_scrape(spawn, child_env, tmp_path):
    """The production settings (psycopg's pool on) under real gunicorn workers in multiprocess mode: the pool's
    gauges add up the workers' pools, and the process metrics are there."""
    port = free_port()
    env = {
        **child_env,
        "DJANGO_SETTINGS_MODULE": "casino.settings",
        "DATABASE_URL": child_database_url(),
        "SECRET_KEY": secrets.token_urlsafe(40),
        "DEBUG": "0",
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "0",
        "DB_POOL": "1",
        "DB_POOL_MIN": "2",
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),
        "METRICS_ALLOW_IPS": "127.0.0.1",
    }
    spawn(["-m", "gunicorn", "casino.wsgi:application", "-c", "python:casino.gunicorn_conf",
           "--bind", f"127.0.0.1:{port}", "--workers", "2"], env=env)  # fmt: skip
    base = f"http://127.0.0.1:{port}"

    def get(path: str) -> int:
        try:
            return urllib.request.urlopen(f"{base}{path}", timeout=5).status
        except OSError:
            return 0

    assert wait_for(lambda: get("/healthz") == 200, 60)
    for _ in range(20):  # requests through the pool in both workers (a refusal still checks a connection out)
        get("/api/v1/tables")
    time.sleep(1.1)  # the gauges are refreshed at most once a second per process
    for _ in range(10):
        get("/healthz")
    body = urllib.request.urlopen(f"{base}/metrics", timeout=10).read().decode()
    families = {f.name: f for f in text_string_to_metric_families(body)}
    size = sum(s.value for s in families["casino_db_pool_connections"].samples)
    most = sum(s.value for s in families["casino_db_pool_connections_max"].samples)
    assert size >= 2 and most >= 8, (size, most)  # at least one worker's pool (min 2), its max 8
    assert "process_resident_memory_bytes" in families and "process_cpu_seconds" in families
