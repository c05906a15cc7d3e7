"""Error pages and logs show no secret, under DEBUG too (issue #26, docs/security.md "Error pages and logs").

A 500 is provoked inside a table command (where the command's context holds the plain seed of the hand in play
and the next hand's) and inside the admin's login (a posted password, cookies), with ``DEBUG`` on: Django's
technical page and the log lines are scanned for every secret the process holds.
"""

from __future__ import annotations

import base64
import logging
import os
import re
import secrets
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.test import Client

from kit.tokens import issue_token
from tables import key_rings, services
from tests.support.play import make_players, make_table

pytestmark = pytest.mark.django_db

# (drawn at run time: a constant would be on the page anyway, in the source lines of this test's frames)
POSTED_PASSWORD = "P" + secrets.token_hex(12)
SESSION_COOKIE = secrets.token_hex(16)


def _secrets_of_the_process() -> dict[str, str]:
    """Every secret this process holds: settings, database credentials, the environment's URLs, the keys."""
    found = {"SECRET_KEY": settings.SECRET_KEY}
    for alias, database in settings.DATABASES.items():
        if database.get("PASSWORD"):
            found[f"{alias} database password"] = database["PASSWORD"]
    if getattr(settings, "MIGRATE_DATABASE", None) and settings.MIGRATE_DATABASE.get("PASSWORD"):
        found["owner password"] = settings.MIGRATE_DATABASE["PASSWORD"]
    for name, value in os.environ.items():
        if value and ((name.endswith("_URL") and urlsplit(value).password) or "KEY" in name or "PASSWORD" in name):
            found[f"${name}"] = value
    for ring_name, ring in (("sealing", key_rings.sealing_keys()), ("signing", key_rings.signing_keys())):
        for key_id, raw in ring.keys.items():
            found[f"{ring_name} key {key_id}"] = base64.b64encode(raw).decode()
            found[f"{ring_name} key {key_id} (hex)"] = raw.hex()
    return found


def _leaks(text: str, held: dict[str, str]) -> list[str]:
    return [name for name, value in held.items() if value and len(value) >= 8 and value in text]


def _log_text(records: list[logging.LogRecord]) -> str:
    formatter = logging.Formatter("%(levelname)s %(name)s: %(message)s")
    return "\n".join(formatter.format(record) for record in records)


@pytest.fixture
def debug(settings: Any) -> None:
    settings.DEBUG = True


def test_a_256_character_admin_username_is_a_400_not_a_500():
    client = Client(raise_request_exception=False)
    response = client.post("/admin/login/", {"username": "a" * 256, "password": POSTED_PASSWORD})
    assert response.status_code == 400
    assert POSTED_PASSWORD.encode() not in response.content


def test_a_500_inside_a_command_under_debug_shows_no_secret_on_the_page_or_in_the_log(debug, monkeypatch, caplog):
    from tables import decision

    player = make_players(1, prefix="leak")[0]
    table = make_table("classic")
    services.table_sit(table_id=table.pk, user=player)
    token = issue_token(player)
    seen: dict[str, Any] = {}

    def broken_core(command: Any, state: Any, context: Any) -> Any:
        seen["ctx"] = context
        raise RuntimeError("the rules core failed inside a command")

    monkeypatch.setattr(decision, "handle", broken_core)
    client = Client(raise_request_exception=False, HTTP_AUTHORIZATION=f"Token {token}")
    with caplog.at_level(logging.INFO):
        response = client.post(
            f"/api/v1/tables/{table.pk}/actions",
            {"action": "bet", "amount": 5},
            content_type="application/json",
            HTTP_ACCEPT="text/html",
        )
    assert response.status_code == 500
    ctx = seen["ctx"]
    # every seed the command's context holds (the hand in play's, the ones committed ahead), and its entropy
    held_seeds = sorted(set(re.findall(r"'([0-9a-f]{64})'", repr(ctx))))
    assert held_seeds, "the command held plain seeds"
    held = {
        **_secrets_of_the_process(),
        **{f"a seed of the command's context ({n})": seed for n, seed in enumerate(held_seeds)},
        "the command's entropy": ctx.entropy,
        "the player's token": token,
    }
    page = response.content.decode()
    assert "RuntimeError" in page and "the rules core failed" in page  # still a useful page
    assert _leaks(page, held) == []
    log = _log_text(caplog.records)
    assert "Internal Server Error" in log or "500" in log
    assert _leaks(log, held) == []


def test_a_500_in_the_admin_login_under_debug_shows_no_password_cookie_or_environment(debug, monkeypatch, caplog):
    from django.contrib.auth import forms

    def broken_authenticate(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("the authentication backend failed")

    monkeypatch.setattr(forms, "authenticate", broken_authenticate)
    client = Client(raise_request_exception=False)
    client.cookies["sessionid"] = SESSION_COOKIE
    with caplog.at_level(logging.INFO):
        response = client.post("/admin/login/", {"username": "operator", "password": POSTED_PASSWORD})
    assert response.status_code == 500
    held = {
        **_secrets_of_the_process(),
        "the posted password": POSTED_PASSWORD,
        "the session cookie": SESSION_COOKIE,
    }
    page = response.content.decode()
    assert "the authentication backend failed" in page
    assert _leaks(page, held) == []
    assert _leaks(_log_text(caplog.records), held) == []
