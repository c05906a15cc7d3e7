"""Several web and worker processes on one machine share the same tables correctly (DESIGN.md, scale).

Two gunicorn servers (two worker processes each) and a Celery worker with two processes serve the same tables;
players send their actions to either server at random, concurrently, and idle turns time out through the
worker. Afterwards every stream is gapless and chained, every hand verifies, the read models rebuild exactly
and the ledger reconciles.
"""

from __future__ import annotations

import json
import random
import socket
import subprocess
import threading
import urllib.error
import urllib.request
import uuid

import pytest
from django.core.management import call_command

from kit.tokens import issue_token
from rules import fold
from tables import loader
from tables.models import Hand
from tables.projection_rebuild import rebuild
from tables.store import chain_problems, load_stream
from tables.verify import verification_ok, verify_hand
from tests.conftest import celery_worker_args, child_database_url, free_port, wait_for
from tests.support.play import make_players, make_table

pytestmark = pytest.mark.django_db(transaction=True)


def _call(base: str, token: str, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(
        base + path,
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"{}")


def _healthy(base: str) -> bool:
    try:
        with urllib.request.urlopen(base + "/healthz", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def test_two_web_servers_and_a_worker_pool_share_tables_correctly(spawn, child_env, settings):
    queue = f"timers-{uuid.uuid4().hex[:12]}"
    settings.TABLE_TIMERS = True
    settings.TABLE_TIMER_QUEUE = queue
    env = {
        **child_env,
        "DATABASE_URL": child_database_url(),
        "TABLE_TIMERS": "1",
        "TABLE_TIMER_QUEUE": queue,
    }
    bases = []
    for _ in range(2):
        port = free_port()
        spawn(["-m", "gunicorn", "casino.wsgi:application", "--bind", f"127.0.0.1:{port}", "--workers", "2"], env=env)
        bases.append(f"http://127.0.0.1:{port}")
    worker = spawn(celery_worker_args(queue, concurrency=2, hostname=f"{queue}@{socket.gethostname()}"), env=env)
    for base in bases:
        assert wait_for(lambda b=base: _healthy(b), 60), f"{base} never became healthy"

    players = make_players(6, prefix="mp")
    tokens = {p.pk: issue_token(p) for p in players}
    tables = [
        make_table("classic", turn_timeout_s=2, betting_timeout_s=2),
        make_table("spanish", turn_timeout_s=2, betting_timeout_s=2),
    ]
    seats = {tables[0].pk: players[:3], tables[1].pk: players[3:]}
    errors: list[str] = []

    def play(user, table_id: int, seed: int) -> None:
        rng = random.Random(seed)
        token = tokens[user.pk]
        status, body = _call(rng.choice(bases), token, "POST", f"/api/v1/tables/{table_id}/seats", {})
        if status != 201:
            errors.append(f"sit: {status} {body}")
            return
        for _ in range(40):
            base = rng.choice(bases)
            status, view = _call(base, token, "GET", f"/api/v1/tables/{table_id}")
            if status != 200:
                errors.append(f"view: {status} {view}")
                return
            legal = [a for a in view["you"]["legal_actions"] if a in ("bet", "hit", "stand")]
            if not legal:
                threading.Event().wait(0.2)
                continue
            action = rng.choice(legal)
            body = {"action": action, **({"amount": view["min_bet"]} if action == "bet" else {})}
            status, answer = _call(base, token, "POST", f"/api/v1/tables/{table_id}/actions", body)
            if status >= 500 or (
                status != 200
                and answer.get("error", {}).get("code")
                not in {"not_your_turn", "wrong_phase", "illegal_action", "stale_version"}
            ):
                errors.append(f"{action}: {status} {answer}")
                return

    threads = [
        threading.Thread(target=play, args=(user, table_id, i))
        for table_id, users in seats.items()
        for i, user in enumerate(users)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(180)
    assert errors == []
    for table in tables:
        assert wait_for(lambda t=table: loader.load_table(t.pk).state.settled_through >= 2, 60), "hands stalled"

    worker.terminate()  # the worker's timers would go on playing: check a table at rest
    try:
        worker.wait(60)
    except subprocess.TimeoutExpired:  # a warm shutdown still finishing its tasks on a busy machine: not the point
        worker.kill()
        worker.wait(10)
    settings.TABLE_TIMERS = False

    for table in tables:
        events = load_stream(table.pk)
        assert [e.version for e in events] == list(range(1, len(events) + 1))
        assert chain_problems(events) == []
        assert loader.load_table(table.pk).state == fold(loader.decode(e) for e in events)
    closed = Hand.objects.exclude(status="in_play")
    assert closed.count() >= 4
    for hand in closed:
        assert verification_ok(verify_hand(hand)), hand.pk
    assert rebuild()[1] == []
    call_command("reconcile")
