"""docker-compose.yml is the production path; Docker cannot run here, so check its wiring statically:
every service's command must point at a real entry point of this project."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
import yaml
from celery import Celery
from django.core.management import get_commands

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]


MEMBERS = ("db-a", "db-b", "db-c")  # PostgreSQL under Patroni; db is HAProxy in front (docs/reliability.md)


def test_compose_has_the_production_services():
    assert {"db", "etcd", *MEMBERS, "redis", "migrate", "web", "live", "worker", "beat"} <= set(SERVICES)
    image = (ROOT / "docker/patroni/Dockerfile").read_text().split("\nFROM postgres:")[1].split("-")[0]
    assert int(image) >= 16
    assert "healthcheck" in SERVICES["redis"]
    for member in MEMBERS:
        assert "healthcheck" in SERVICES[member]
        assert any(v.endswith(":/var/lib/postgresql/data") for v in SERVICES[member]["volumes"])


def test_web_serves_rest_with_threads():
    command = SERVICES["web"]["command"]
    assert command[command.index("--worker-class") + 1] == "gthread"
    assert "--threads" in command


def test_live_serves_the_asgi_application_on_its_own_port():
    command = SERVICES["live"]["command"]
    assert command[:2] == ["uvicorn", "casino.asgi:application"]
    port = command[command.index("--port") + 1]
    assert port in SERVICES["live"]["expose"] and port != "8000"
    assert command[command.index("--ws-max-size") + 1] == "4096"  # API.md v1.2: frames over 4 KiB close 1009
    assert "healthcheck" in SERVICES["live"]


def test_only_the_buffering_proxy_is_published():
    """Issue 27: gunicorn's threads facing clients directly are stalled by slow senders; nginx reads requests
    whole first (docker/nginx/), and only its own address may say who the client is (kit/proxy.py)."""
    nginx = SERVICES["nginx"]
    assert nginx["image"].startswith("nginx:")
    assert [name for name, service in SERVICES.items() if service.get("ports")] == ["nginx"]
    assert "./docker/nginx/templates:/etc/nginx/templates:ro" in nginx["volumes"]
    assert {nginx["environment"]["WEB_UPSTREAM"], nginx["environment"]["LIVE_UPSTREAM"]} == {"web:8000", "live:8001"}
    trusted = COMPOSE["x-app-env"]["TRUSTED_PROXIES"]
    assert nginx["networks"]["casino"]["ipv4_address"] == trusted
    template = (ROOT / "docker" / "nginx" / "templates" / "default.conf.template").read_text()
    for directive in ("client_header_timeout", "client_body_timeout", "client_max_body_size", "location /ws/",
                      "proxy_set_header X-Real-IP $remote_addr"):  # fmt: skip
        assert directive in template


@pytest.mark.parametrize("name", ["web", "live"])
def test_servers_wait_for_migrations_to_complete(name):
    assert SERVICES[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"


def _check_entry_point(command: list[str]) -> None:
    program = command[0]
    if program == "gunicorn":
        module_name, attr = command[1].split(":")
        module = importlib.import_module(module_name)
        assert callable(getattr(module, attr)), f"{command[1]} is not a WSGI callable"
        if "--config" in command:  # python:<module>, importable
            importlib.import_module(command[command.index("--config") + 1].removeprefix("python:"))
    elif program == "uvicorn":
        module_name, attr = command[1].split(":")
        module = importlib.import_module(module_name)
        assert callable(getattr(module, attr)), f"{command[1]} is not an ASGI callable"
    elif program == "celery":
        assert command[1] == "-A"
        module = importlib.import_module(command[2])
        assert isinstance(module.celery_app, Celery)
        assert command[3] in {"worker", "beat"}
    elif program == "python":
        assert command[1] == "manage.py" and (ROOT / "manage.py").is_file()
        assert command[2] in get_commands(), f"manage.py has no command {command[2]!r}"
    else:  # pragma: no cover - a new kind of entry point must be taught to this test
        pytest.fail(f"unknown entry point {program!r}")


@pytest.mark.parametrize("name", ["migrate", "web", "live", "worker", "beat"])
def test_service_command_points_at_a_real_entry_point(name):
    service = SERVICES[name]
    assert "build" in service or "image" in service
    _check_entry_point(service["command"])
    env = service["environment"]
    assert {"DATABASE_URL", "REDIS_URL", "SECRET_KEY"} <= set(env)
    assert env["DEBUG"] == "0"


def test_dockerfile_default_command_is_a_real_entry_point():
    lines = (ROOT / "Dockerfile").read_text().splitlines()
    cmd = next(line for line in lines if line.startswith("CMD "))
    _check_entry_point(yaml.safe_load(cmd[4:]))


def test_the_app_connects_as_a_limited_role_and_only_migrate_as_the_owner():
    """Issue #12: the image's superuser only administers; the init script creates the owner and the app role."""
    db_env = SERVICES["db-a"]["environment"]
    superuser = db_env["PATRONI_SUPERUSER_USERNAME"]
    # Patroni's post_bootstrap runs the roles script once, on the first primary
    assert "COPY postgres-initdb/10-casino-roles.sh" in (ROOT / "docker/patroni/Dockerfile").read_text()
    assert "casino-roles" in (ROOT / "docker/patroni/post-bootstrap.sh").read_text()
    script = (ROOT / "docker/postgres-initdb/10-casino-roles.sh").read_text()
    assert "NOSUPERUSER" in script and {"DB_OWNER_PASSWORD", "DB_APP_PASSWORD"} <= set(db_env)
    migrate = SERVICES["migrate"]["environment"]
    assert migrate["MIGRATE_DATABASE_URL"].startswith("postgres://casino_owner:")
    for name in ("migrate", "web", "worker", "beat"):
        env = SERVICES[name]["environment"]
        assert env["DATABASE_URL"].startswith("postgres://casino_app:"), name
        assert env["DATABASE_URL"].split("://")[1].split(":")[0] != superuser, name
        if name != "migrate":
            assert "MIGRATE_DATABASE_URL" not in env, name


def test_only_the_signer_holds_the_signing_keys_and_connects_as_its_own_role():
    """Issue #25/#26: checkpoints are signed by the signer service alone; every other service verifies with the
    public keys and, with CHECKPOINT_SIGNER=signer, may not insert a checkpoint (granted by migrate)."""
    signer = SERVICES["signer"]
    _check_entry_point(signer["command"])
    assert signer["command"][signer["command"].index("-Q") + 1] == "signer"
    assert signer["environment"]["DATABASE_URL"].startswith("postgres://casino_signer:")
    assert "CHECKPOINT_SIGNING_KEYS" in signer["environment"]
    for name, service in SERVICES.items():
        env = service.get("environment") or {}
        if name == "signer" or not isinstance(env, dict) or "DATABASE_URL" not in env:  # (db, redis, the proxy)
            continue
        assert "CHECKPOINT_SIGNING_KEYS" not in env, name
        assert env.get("CHECKPOINT_SIGNER") == "signer" and "CHECKPOINT_PUBLIC_KEYS" in env, name
    assert SERVICES["migrate"]["environment"]["DATABASE_SIGNER_ROLE"] == "casino_signer"
    assert "DB_SIGNER_PASSWORD" in SERVICES["db-a"]["environment"]


def test_only_the_processes_that_deal_and_the_signer_hold_the_sealing_key():
    """Issue #26: sealing keys only where hands are dealt (web, live, worker) and replayed (signer); beat, the lab's
    worker and migrate never open a seed or a face-down card, so they hold no fairness key."""
    holders = {name for name, svc in SERVICES.items() if "SEED_SEALING_KEYS" in (svc.get("environment") or {})}
    assert holders == {"web", "live", "worker", "signer"}
