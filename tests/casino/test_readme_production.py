"""The README's production section (issue 32): every compose service listed (the lab worker too), every variable
compose or the database roles script reads, the HTTPS settings an operator meets first, and every setting read
from the environment documented somewhere."""

from __future__ import annotations

import re

import pytest
import yaml

from tests.conftest import ROOT

README = (ROOT / "README.md").read_text()
PRODUCTION = README[README.index("## Production") : README.index("## Layout")]
COMPOSE_TEXT = (ROOT / "docker-compose.yml").read_text()
SERVICES = sorted(yaml.safe_load(COMPOSE_TEXT)["services"])


@pytest.mark.parametrize("service", SERVICES)
def test_every_compose_service_is_in_the_production_table(service):
    assert re.search(rf"^\| `{re.escape(service)}` \|", PRODUCTION, re.M), f"{service} missing from the README"


def test_the_lab_worker_says_what_is_lost_without_it():
    row = next(line for line in PRODUCTION.splitlines() if line.startswith("| `lab-worker` |"))
    assert "computing" in row


def test_every_variable_compose_reads_is_in_the_production_section():
    variables = set(re.findall(r"\$\{([A-Z_0-9]+)", COMPOSE_TEXT))
    missing = sorted(v for v in variables if f"`{v}`" not in PRODUCTION and f"{v}=" not in PRODUCTION)
    assert not missing, f"compose reads {missing}, the README's production section does not say"


def test_the_roles_script_knobs_are_in_the_production_section():
    script = (ROOT / "docker/postgres-initdb/10-casino-roles.sh").read_text()
    knobs = set(re.findall(r"\$\{([A-Z_0-9]+)", script))
    assert {"DB_OWNER_ROLE", "DB_APP_ROLE", "DB_OWNER_PASSWORD", "DB_APP_PASSWORD", "POSTGRES_USER"} <= knobs
    assert not sorted(k for k in knobs if f"`{k}`" not in PRODUCTION)


def test_https_settings_are_explained_where_an_operator_starts():
    for name in ("SECURE_SSL_REDIRECT", "BEHIND_TLS_PROXY", "X-Forwarded-Proto", "301"):
        assert name in PRODUCTION, name


def test_every_setting_read_from_the_environment_is_documented():
    settings_source = (ROOT / "casino/settings.py").read_text()
    reader = r'(?:os\.environ\.get|env_bool|env_int|env_list|env_rate)\(\s*"([A-Z_0-9]+)"'
    names = set(re.findall(reader, settings_source))
    documentation = README + "".join(p.read_text() for p in (ROOT / "docs").glob("*.md"))
    assert len(names) > 40
    assert not sorted(n for n in names if n not in documentation)
