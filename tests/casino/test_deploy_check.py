"""Safe production defaults (issue 11): `manage.py check --deploy` with the production settings reports nothing
(HSTS, HTTPS redirect, secure cookies), directly on TLS or behind a TLS-terminating proxy; plain HTTP is
redirected to HTTPS, except the health probe."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys

import pytest
from django.test import Client

from tests.conftest import ROOT


def _production_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SECURE_", "SESSION_", "CSRF_", "BEHIND_"))}
    env.update(
        DJANGO_SETTINGS_MODULE="casino.settings",
        DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(60),
        ALLOWED_HOSTS="casino.example.com",
        PYTHONPATH=str(ROOT),
        **extra,
    )
    return env


@pytest.mark.parametrize("extra", [{}, {"BEHIND_TLS_PROXY": "1"}], ids=["tls", "behind-tls-proxy"])
def test_check_deploy_reports_nothing_with_the_production_settings(extra):
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=_production_env(**extra),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_without_debug_the_defaults_are_https_only():
    script = (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.SECURE_SSL_REDIRECT, s.SECURE_HSTS_SECONDS, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE)"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=_production_env(), capture_output=True, text=True, timeout=60
    )
    assert out.stdout.split() == ["True", "31536000", "True", "True"], out.stderr


@pytest.mark.django_db
def test_plain_http_is_redirected_to_https_except_the_health_probe(settings):
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    client = Client()  # a new handler: the security middleware reads the settings when it is built
    response = client.get("/admin/login/")
    assert response.status_code == 301 and response["Location"].startswith("https://")
    assert client.get("/admin/login/", HTTP_X_FORWARDED_PROTO="https").status_code == 200
    assert client.get("/healthz").status_code in (200, 503)
