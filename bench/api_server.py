"""The server side of the HTTP benches (bench/api.py, bench/live.py): a bench database of their own, one funded
player seated at each house-banked classic table, and gunicorn serving the API and the bare endpoint
(bench/endpoint.py) on it.

Each bench names its database after ``DATABASE_URL``'s (``<database><suffix>``): benches of several checkouts on one
server never drop each other's database.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]


def bench_db_name(url: str, suffix: str) -> str:
    """``<database of url><suffix>``: a database of this checkout's own."""
    return (urlsplit(url).path.lstrip("/") or "casino") + suffix


def bench_database_url(suffix: str) -> str:
    """Drop and create the bench's database (``<DATABASE_URL's database><suffix>``); return its URL."""
    import psycopg

    url = urlsplit(os.environ["DATABASE_URL"])
    bench_db = bench_db_name(os.environ["DATABASE_URL"], suffix)
    maintenance = url._replace(path="/postgres").geturl().replace("postgres://", "postgresql://", 1)
    with psycopg.connect(maintenance, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{bench_db}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{bench_db}"')
    return url._replace(path=f"/{bench_db}").geturl()


def wsgi_app():  # type: ignore[no-untyped-def]
    """gunicorn's app factory (``bench.api_server:wsgi_app()``): the test settings, persistent connections, the
    bench endpoint."""
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings_test")
    import django

    django.setup()
    from django.conf import settings

    settings.DATABASES["default"]["CONN_MAX_AGE"] = 600
    settings.DATABASES["default"]["CONN_HEALTH_CHECKS"] = False
    settings.ROOT_URLCONF = "bench.endpoint"  # the production URLs and the bare endpoint (bench/endpoint.py)
    settings.TABLE_TIMERS = False
    from django.core.wsgi import get_wsgi_application

    return get_wsgi_application()


def seat_players(players: int) -> list[tuple[str, int]]:
    """Migrate, then one funded player per house-banked classic table, seated; returns (token, table id)."""
    sys.path.insert(0, str(ROOT))
    os.environ["DJANGO_SETTINGS_MODULE"] = "casino.settings_test"
    os.environ.setdefault("SECRET_KEY", "bench")
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model

    settings.ROOT_URLCONF = "bench.endpoint"  # the bare endpoint in this process too (--profile)
    from django.core.management import call_command

    from kit.tokens import issue_token
    from ledger import services as ledger
    from tables import services
    from tables.table_spec import TableSpec

    settings.TABLE_TIMERS = False
    call_command("migrate", verbosity=0)
    from django.db import connection

    with connection.cursor() as cursor:  # the bare endpoint's table (bench.endpoint)
        cursor.execute(
            "CREATE TABLE bench_ping (id bigserial PRIMARY KEY, user_id bigint NOT NULL, at timestamptz DEFAULT now())"
        )
    User = get_user_model()
    cashier = User.objects.create_user(username="bench-cashier", is_staff=True)
    seats = []
    for i in range(players):
        user = User.objects.create_user(username=f"bench{i}")
        ledger.deposit(user=user, amount=10**9, reference="bench", operator=cashier, cause=f"bench:{i}")
        table = services.table_create(
            operator=cashier,
            name=f"bench {i}",
            spec=TableSpec(
                preset="classic",
                min_bet=10,
                max_bet=100,
                max_seats=2,
                bank="house",
                turn_timeout_s=3600,
                betting_timeout_s=3600,
            ),
        )
        services.table_sit(table_id=table.pk, user=user)
        seats.append((issue_token(user), table.pk))
    from django.db import connections

    connections.close_all()
    return seats


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_gunicorn(port: int, workers: int, threads: int, database_url: str) -> subprocess.Popen[bytes]:
    """gunicorn (gthread workers) serving :func:`wsgi_app` on 127.0.0.1:``port``, in a session of its own; returns
    once it accepts connections."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "casino.settings_test",
        "PYTHONPATH": str(ROOT),
        "SECRET_KEY": os.environ.get("SECRET_KEY", "bench"),
    }
    command = [
        sys.executable, "-m", "gunicorn", "--pythonpath", str(ROOT), "bench.api_server:wsgi_app()",
        "--bind", f"127.0.0.1:{port}", "--worker-class", "gthread", "--workers", str(workers),
        "--threads", str(threads), "--keep-alive", "30", "--log-level", "warning",
    ]  # fmt: skip
    proc = subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("gunicorn did not start")
