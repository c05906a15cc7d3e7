"""Test helpers for provable fairness: the database owner rewriting history, and the secrets only the key
holder can read."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tables import checkpoint_signing, loader
from tables.store import event_hash, load_stream
from tests.conftest import ROOT, child_database_url, free_port, healthy, owner_cursor, wait_for


def run_verifier(path: Path, *args: str) -> tuple[int, str]:
    """``tools/verify_hand.py`` on an export file: (exit status, what it printed)."""
    done = subprocess.run(
        # -I -S: no site-packages, no environment; the tool must need nothing beyond the standard library
        [sys.executable, "-I", "-S", str(ROOT / "tools" / "verify_hand.py"), str(path), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin"},
    )
    return done.returncode, done.stdout + done.stderr


def start_live_server(spawn: Callable[..., Any], child_env: dict[str, str]) -> str:
    """A gunicorn of the project as a child process (``spawn``: the conftest's fixture); its base URL, healthy."""
    port = free_port()
    env = {**child_env, "DATABASE_URL": child_database_url()}
    spawn(["-m", "gunicorn", "casino.wsgi:application", "--bind", f"127.0.0.1:{port}", "--workers", "2"], env=env)
    base = f"http://127.0.0.1:{port}"
    assert wait_for(lambda: healthy(base), 60), "the server never became healthy"
    return base


def api_token(base: str, username: str, password: str = "x" * 12) -> str:
    """A token of ``username`` from the live server (``tests.support.play.make_players``' password)."""
    request = urllib.request.Request(
        base + "/api/v1/auth/token",
        data=json.dumps({"username": username, "password": password}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return str(json.load(response)["token"])


def api_get(base: str, token: str, path: str) -> Any:
    """GET ``path`` from the live server with ``token``: the JSON answer."""
    request = urllib.request.Request(base + path, headers={"Authorization": f"Token {token}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def run_live_verifier(base: str, token: str, hand_id: int) -> tuple[int, str]:
    """``tools/verify_hand.py --url`` against a live server, with the current key given from outside."""
    done = subprocess.run(
        # -I -S: no site-packages, no environment; the tool must need nothing beyond the standard library
        [
            sys.executable,
            "-I",
            "-S",
            str(ROOT / "tools" / "verify_hand.py"),
            "--url",
            base,
            "--token",
            token,
            str(hand_id),
            "--public-key",
            current_key(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin"},  # nothing of the project's settings: the tool needs none
    )
    return done.returncode, done.stdout + done.stderr


def current_key() -> str:
    """``--public-key`` for the casino's current checkpoint key, as a user who got it elsewhere passes it."""
    key_id, raw = checkpoint_signing.public_keys()[0]
    return f"{key_id}:{base64.b64encode(raw).decode()}"


def rewrite_event(table_id: int, version: int, change: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """What someone with full access to the database could do: change the data of event ``version`` behind the
    append-only triggers and re-hash the whole chain after it, so the chain itself looks intact."""
    rewrite_events(table_id, {version: change})


def rewrite_events(table_id: int, changes: dict[int, Callable[[dict[str, Any]], dict[str, Any]]]) -> None:
    """:func:`rewrite_event` for several events at once (by version)."""
    stream = load_stream(table_id)
    version = min(changes)
    previous = stream[version - 2].hash if version > 1 else "0" * 64
    rows = []
    for stored in stream[version - 1 :]:
        change = changes.get(stored.version)
        data = change(dict(stored.data)) if change is not None else stored.data
        digest = event_hash(
            prev_hash=previous,
            stream_id=table_id,
            version=stored.version,
            type=stored.type,
            data=data,
            metadata=stored.metadata,
            recorded_at=stored.recorded_at,
        )
        rows.append((json.dumps(data), previous, digest, table_id, stored.version))
        previous = digest
    with owner_cursor(triggers_off=["tables_event"]) as cursor:  # past the append-only triggers
        cursor.executemany(
            "UPDATE tables_event SET data = %s::jsonb, prev_hash = %s, hash = %s WHERE stream_id = %s AND version = %s",
            rows,
        )
        cursor.execute("DELETE FROM tables_snapshot WHERE table_id = %s", [table_id])
    loader.forget_all()


def all_database_text() -> dict[str, str]:
    """Every row of every table of the database, as text (bytes as latin-1), by table name."""
    texts: dict[str, str] = {}
    with owner_cursor() as cursor:
        cursor.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename")
        names = [r[0] for r in cursor.fetchall()]
        for name in names:
            parts = []
            cursor.execute(f'SELECT * FROM "{name}"')  # names from the catalogue
            for row in cursor.fetchall():
                for value in row:
                    if isinstance(value, (bytes, memoryview)):
                        parts.append(bytes(value).decode("latin-1"))
                    else:
                        parts.append(json.dumps(value, default=str) if isinstance(value, (dict, list)) else str(value))
            texts[name] = "\n".join(parts)
    return texts
