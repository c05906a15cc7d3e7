"""Shared fixtures. The suite runs against the real PostgreSQL and Redis of DATABASE_URL / REDIS_URL.

Database roles (docs/architecture.md): the test database is created and migrated as the owner role
(MIGRATE_DATABASE_URL), then every connection of the tests, and of the processes they start, is the
application role's (DATABASE_URL). ``owner_cursor`` is for the tests that play a privileged attacker.
"""

from __future__ import annotations

import itertools
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def child_database_url() -> str:
    """DATABASE_URL pointing at the test database, for child processes (servers, workers, commands)."""
    from django.db import connection

    return urlsplit(os.environ["DATABASE_URL"])._replace(path=f"/{connection.settings_dict['NAME']}").geturl()


def _use_credentials(owner: bool) -> None:
    """Point the default connection at the owner's or the application role's credentials (closing it)."""
    from django.conf import settings
    from django.db import connections

    connection = connections["default"]
    connection.close()
    if owner:
        connection.settings_dict.update(settings.MIGRATE_DATABASE or {})
    else:
        connection.settings_dict.update(_APP_CREDENTIALS)


_APP_CREDENTIALS: dict[str, Any] = {}


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix: None) -> None:
    """The test database is created, migrated and dropped by the owner role."""
    from django.conf import settings

    default = settings.DATABASES["default"]
    _APP_CREDENTIALS.update({key: default.get(key) for key in ("USER", "PASSWORD", "HOST", "PORT")})
    _use_credentials(owner=True)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any) -> Iterator[None]:
    """Once the test database is ready, the tests connect as the application role."""
    with django_db_blocker.unblock():
        _use_credentials(owner=False)
    yield
    with django_db_blocker.unblock():
        _use_credentials(owner=True)


@contextmanager
def owner_cursor(*, triggers_off: Sequence[str] = ()) -> Iterator[Any]:
    """A cursor of the owner role on the test database (a connection of its own, committed at the end), for the
    tests that play an attacker with more than the application's rights. ``triggers_off`` names tables whose
    triggers are disabled for that transaction (what the owner, or a superuser, could do)."""
    import psycopg
    from django.db import connection
    from psycopg import sql

    from devtools.testing_db.base import owner_connection_params

    with psycopg.connect(**owner_connection_params(connection.settings_dict)) as conn, conn.cursor() as cursor:
        for table in triggers_off:
            cursor.execute(sql.SQL("ALTER TABLE {} DISABLE TRIGGER USER").format(sql.Identifier(table)))
        yield cursor
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # fire the deferred checks before the triggers return
        for table in triggers_off:
            cursor.execute(sql.SQL("ALTER TABLE {} ENABLE TRIGGER USER").format(sql.Identifier(table)))


@contextmanager
def owner_connection() -> Iterator[None]:
    """Django's default connection on the owner's credentials meanwhile, for a transactional test that runs what
    only the owner may (a data migration's code): the connection is closed before and after, so it must not be
    inside a transaction."""
    from django.db import connection

    assert not connection.in_atomic_block, "owner_connection is for transactional tests"
    _use_credentials(owner=True)
    try:
        yield
    finally:
        _use_credentials(owner=False)


def celery_worker_args(
    queue: str, *, pool: str | None = None, concurrency: int | None = None, hostname: str | None = None
) -> list[str]:
    """The arguments (after the interpreter) of a test's Celery worker consuming ``queue``: quiet, and without
    gossip, mingle or heartbeat (a test's worker talks to nobody but its broker)."""
    args = ["-m", "celery", "-A", "casino", "worker", "-Q", queue]
    args += [f"--pool={pool}"] if pool else []
    args += [f"--concurrency={concurrency}"] if concurrency else []
    args += ["--without-gossip", "--without-mingle", "--without-heartbeat", "--loglevel=WARNING"]
    return args + (["--hostname", hostname] if hostname else [])


def healthy(base: str) -> bool:
    """True when ``base`` (``http://host:port``) answers ``/healthz`` with 200."""
    import urllib.request

    try:
        with urllib.request.urlopen(base + "/healthz", timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def wait_for(predicate, timeout: float, interval: float = 0.05):  # type: ignore[no-untyped-def]
    """Poll predicate until it returns a truthy value or timeout passes; return the last value."""
    deadline = time.monotonic() + timeout
    value = predicate()
    while not value and time.monotonic() < deadline:
        time.sleep(interval)
        value = predicate()
    return value


@pytest.fixture
def child_env() -> dict[str, str]:
    """Environment for child processes (servers, workers) of the tests."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_SUPERUSER_URL", "MIGRATE_DATABASE_URL")}
    env["PYTHONPATH"] = str(ROOT)
    env.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings_test")
    return env


@pytest.fixture
def spawn(child_env: dict[str, str]) -> Iterator:  # type: ignore[type-arg]
    """Start child processes that are terminated (with their children) at the end of the test."""
    procs: list[subprocess.Popen[bytes]] = []

    def start(args: list[str], env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(
            [sys.executable, *args],
            cwd=ROOT,
            env=env or child_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        procs.append(proc)
        return proc

    yield start
    for proc in procs:
        if proc.poll() is None:
            os.killpg(proc.pid, 15)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, 9)


# The longest tests start first, longest first, spread over the workers. pytest-xdist's worksteal (``make test``)
# hands each worker one contiguous share of the collection at the start, then an idle worker steals the second half
# of the busiest worker's queue (its end: short tests). With every long test at the front of the collection, the
# first worker got all of them and ran them one after the other (685 s of 1,364 worker-seconds on two workers,
# while the others stole its short tests); so each share now starts with its part of the long tests (whole entries
# of the list, so a module's fixtures stay in one worker), dealt longest first to the share with the least so far.
# The list is by test id prefix, with the seconds each took in a whole run's timeline on this machine (2026-12-02,
# two workers, load average 2-5); everything else keeps its order.
SLOW_FIRST: tuple[tuple[str, float], ...] = (
    ("tests/soak/test_soak.py::test_a_short_soak", 141),
    ("tests/tables/live/test_play_browser.py", 80),  # (60-260 s: 100 s for a hand that never ended)
    ("tests/soak/test_failover.py", 20),
    ("tests/bench/test_short_runs.py", 54),
    ("tests/tables/timeouts/test_timeouts.py", 43),
    ("tests/tables/live/test_live_hostile.py", 30),
    ("tests/tables/admin/test_admin_hands.py::test_hands_of_every_preset_render_at_every_step", 27),
    ("tests/kit/test_admin_lookups.py::test_sorting_by_any_column", 25),
    ("tests/backoffice/test_admin_browser.py", 23),
    ("tests/tables/admin/test_surfaces_agree.py", 8),
    ("tests/casino/test_multiprocess.py", 21),
    ("tests/lab/test_lab_exact.py::test_a_seeded_run", 19),
    ("tests/ledger/test_ledger_reconcile.py::test_the_command_exits_zero", 18),
    ("tests/ledger/test_ledger_properties.py::test_random_operations", 17),
    ("tests/backoffice/test_admin_lists_at_scale.py", 16),
    ("tests/devtools/test_run_command.py::test_run_serves", 40),  # (and the README's tour)
    ("tests/kit/test_health_outage.py", 15),
    ("tests/tables/api/test_api_seed_schedule.py", 15),
    ("tests/casino/test_worker_survives_broker_restart.py", 15),
    ("tests/tables/api/test_api_game_leaks.py::test_no_viewer_ever_sees_a_hidden_card", 14),
    ("tests/casino/test_quiet_console.py", 13),
    ("tests/tables/api/test_api_schemathesis.py", 11),
    ("tests/lab/test_lab_simulator.py::test_the_same_seed", 10),
    ("tests/kit/test_api_unavailable.py", 10),
    ("tests/tables/admin/test_admin_hiding.py::test_a_hand_in_play_shows_no_hidden_card", 9),
    ("tests/devtools/test_edge_proxy.py::test_slow_senders", 9),
    ("tests/backoffice/test_database_roles.py::test_the_compose_init_script", 8),
    ("tests/kit/test_health_readiness.py", 7),
    ("tests/tables/live/test_live_page_browser.py", 6),
    ("tests/tables/store/test_verify.py", 6),  # (whole: a module fixture)
    ("tests/tools/test_fairness_live.py", 6),
    ("tests/lab/test_lab_admin.py", 5),
    ("tests/backoffice/test_monitoring.py", 4),
    ("tests/rules/test_rules_hand_end.py::test_between_hands", 3),
    ("tests/lab/test_lab_report.py", 3),
    ("tests/responsible/test_responsible_page_browser.py", 3),
)


def _slow_rank(nodeid: str) -> int:
    return next((i for i, (prefix, _) in enumerate(SLOW_FIRST) if nodeid.startswith(prefix)), len(SLOW_FIRST))


def suite_order(nodeids: Sequence[str], workers: int) -> list[str]:
    """The order of the collection for ``workers`` worksteal workers (or one process): the long tests of
    ``SLOW_FIRST`` first in each worker's starting share, longest first, each entry's tests together; the rest in
    collection order filling the shares to the sizes worksteal hands out (``len(pending) // idle workers`` each)."""
    ranked = sorted(nodeids, key=_slow_rank)
    if workers < 2:
        return ranked
    units: dict[int, list[str]] = {}
    rest: list[str] = []
    for nodeid in ranked:
        rank = _slow_rank(nodeid)
        (units.setdefault(rank, []) if rank < len(SLOW_FIRST) else rest).append(nodeid)
    shares: list[list[str]] = [[] for _ in range(workers)]
    load = [0.0] * workers
    for rank in sorted(units, key=lambda r: -SLOW_FIRST[r][1]):  # (stable: ties keep the list's order)
        least = min(range(workers), key=load.__getitem__)
        shares[least] += units[rank]
        load[least] += SLOW_FIRST[rank][1]
    order: list[str] = []
    remaining, fill = len(ranked), iter(rest)
    for index, share in enumerate(shares):
        size = remaining // (workers - index)
        remaining -= size
        order += share + list(itertools.islice(fill, max(0, size - len(share))))
    return order + list(fill)


#: The tests whose outcome depends on how PostgreSQL and Redis are reached (a URL taken apart, processes started with
#: the URLs they are given, a service that goes away, roles that connect on their own): marked ``reach``. `.ci/run`
#: runs the whole suite against the machine's services and these again with nothing set, as a newcomer's
#: `make test` runs them (embedded PostgreSQL over a Unix socket, embedded Redis): `make test ARGS="-m reach"`.
REACH: tuple[str, ...] = (
    "tests/soak/test_failover.py",
    "tests/devtools/test_run_command.py",
    "tests/devtools/test_parallel_suite.py",
    "tests/devtools/test_core_tests_need_no_services.py",
    "tests/kit/test_health.py",
    "tests/kit/test_health_outage.py",
    "tests/kit/test_health_readiness.py",
    "tests/kit/test_redis_state.py",
    "tests/kit/test_api_unavailable.py",
    "tests/casino/test_multiprocess.py",
    "tests/casino/test_worker_survives_broker_restart.py",
    "tests/casino/test_console_lines.py",
    "tests/backoffice/test_database_roles.py",
    "tests/tables/test_checkpoint_signer.py",
    "tests/tables/test_database_attacks.py",
    "tests/tools/test_fairness_live.py",
)


#: The drills that start a Patroni set (etcd, three PostgreSQL members in network namespaces): marked ``ha``. The
#: whole suite (`make test`) runs them after everything else, beside each other only (devtools/devenv.py).
HA: tuple[str, ...] = (
    "tests/soak/test_failover.py::test_patroni_fails_over",
    "tests/soak/test_soak.py::test_a_short_soak",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.nodeid.startswith(REACH):
            item.add_marker(pytest.mark.reach)
        if item.nodeid.startswith(HA):
            item.add_marker(pytest.mark.ha)
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 1)  # (set in each worker, which collects)
    position = {nodeid: i for i, nodeid in enumerate(suite_order([item.nodeid for item in items], workers))}
    items.sort(key=lambda item: position[item.nodeid])


# Fixtures every test directory may use (last: they import the helpers above from this module).
from tests.support.admin_fixtures import *  # noqa: E402, F403 - staff roles, signed-in admin clients, played hands
from tests.support.api_fixtures import *  # noqa: E402, F403 - players, API clients, chips, the ASGI server, schema
from tests.support.browser import *  # noqa: E402, F403 - the headless browser and its page
from tests.support.celery_fixtures import *  # noqa: E402, F403 - a real Celery worker and beat of the test's own
