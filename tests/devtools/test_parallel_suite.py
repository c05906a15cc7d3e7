"""The suite runs on every core (pytest-xdist, devtools/devenv.py): what keeps its workers, and several checkouts'
suites on one machine, from meeting (docs/performance.md, "Test suite")."""

from __future__ import annotations

import os

import pytest
from django.conf import settings
from django.db import connection
from hypothesis import given
from hypothesis import strategies as st

from devtools.devenv import parallel_args
from devtools.testing_db.base import _referencing_first
from tests.conftest import SLOW_FIRST, suite_order


@pytest.mark.django_db
def test_each_worker_has_its_own_database_and_redis_keys() -> None:
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is None:
        assert os.environ.get("REDIS_KEY_PREFIX", "") == settings.REDIS_KEY_PREFIX
        return
    prefix = f"test.{worker}."
    assert connection.settings_dict["NAME"].endswith(f"_{worker}")
    assert prefix == settings.REDIS_KEY_PREFIX
    assert settings.CACHES["default"]["KEY_PREFIX"] == prefix
    assert {"global_keyprefix": prefix} == settings.CELERY_BROKER_TRANSPORT_OPTIONS
    assert settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"].startswith(prefix)
    from tables import notify
    from tables.live import limits

    assert notify.latest_key(1).startswith(prefix) and notify.group_channel(1).startswith(prefix)
    assert limits.key(1).startswith(prefix)


def test_the_cache_writes_under_the_prefix_in_the_real_redis() -> None:
    import uuid

    import redis
    from django.core.cache import cache

    name = f"parallel-{uuid.uuid4().hex}"
    cache.set(name, 1, 30)
    raw = redis.Redis.from_url(settings.REDIS_URL)
    try:
        assert raw.exists(f"{settings.REDIS_KEY_PREFIX}:1:{name}")
        assert not raw.exists(f":1:{name}") or not settings.REDIS_KEY_PREFIX
    finally:
        cache.delete(name)


def test_the_processes_a_test_starts_inherit_the_prefix(child_env: dict[str, str]) -> None:
    assert child_env.get("REDIS_KEY_PREFIX", "") == settings.REDIS_KEY_PREFIX


@pytest.mark.parametrize(
    ("args", "workers", "expected"),
    [
        ([], None, ["-n", str(2 * (os.cpu_count() or 1)), "--dist", "worksteal"]),
        (["-q", "-x"], "3", ["-n", "3", "--dist", "worksteal"]),
        ([], "0", []),
        (["tests/kit/test_health.py", "-x"], None, []),
        (["tests/kit/test_health.py::test_healthz_is_ok"], None, []),
        (["-n", "4"], None, []),
        (["-n4"], None, []),
        (["-p", "no:xdist"], None, []),
        (["--dist", "loadfile"], None, []),
    ],
)
def test_make_test_runs_the_whole_suite_in_parallel_and_chosen_tests_as_asked(
    args: list[str], workers: str | None, expected: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    if workers is None:
        monkeypatch.delenv("TEST_WORKERS", raising=False)
    else:
        monkeypatch.setenv("TEST_WORKERS", workers)
    assert parallel_args(args) == expected


@given(st.dictionaries(st.sampled_from("abcdefg"), st.sets(st.sampled_from("abcdefg")), min_size=1))
def test_the_flush_deletes_every_table_before_the_tables_it_references(graph: dict[str, set[str]]) -> None:
    tables = sorted(graph)
    foreign_keys = [(name, target) for name, targets in graph.items() for target in targets if name != target]
    order = _referencing_first(tables, foreign_keys)
    assert sorted(order) == tables  # every table once
    position = {table: i for i, table in enumerate(order)}
    acyclic = _acyclic(graph)
    for name, target in foreign_keys:
        if name in position and target in position and acyclic:
            assert position[name] < position[target], (name, target, order)


def _acyclic(graph: dict[str, set[str]]) -> bool:
    seen: set[str] = set()
    path: set[str] = set()

    def visit(node: str) -> bool:
        if node in path:
            return False
        if node in seen:
            return True
        path.add(node)
        ok = all(visit(target) for target in graph.get(node, ()) if target != node and target in graph)
        path.discard(node)
        seen.add(node)
        return ok

    return all(visit(node) for node in graph)


def _worksteal_shares(order: list[str], workers: int) -> list[list[str]]:
    """What pytest-xdist's worksteal hands each idle worker at the start: contiguous shares of the collection,
    ``len(pending) // idle workers`` each (xdist/scheduler/worksteal.py, ``check_schedule``)."""
    shares, pending = [], list(order)
    for index in range(workers):
        size = len(pending) // (workers - index)
        shares.append(pending[:size])
        del pending[:size]
    return shares


def _seconds(nodeid: str) -> float:
    return next((seconds for prefix, seconds in SLOW_FIRST if nodeid.startswith(prefix)), 0.0)


@pytest.mark.parametrize("workers", [2, 3, 4])
def test_each_workers_first_share_starts_with_its_part_of_the_long_tests_longest_first(workers: int) -> None:
    slow = [f"{prefix}{'' if '::' in prefix else '::test_x'}[{n}]" for prefix, _ in SLOW_FIRST for n in (1, 2)]
    quick = [f"tests/quick/test_{n:04}.py::test_it" for n in range(1200)]
    nodeids = quick[:500] + slow[::-1] + quick[500:]
    order = suite_order(nodeids, workers)
    assert sorted(order) == sorted(nodeids)  # every test once
    shares = _worksteal_shares(order, workers)
    loads = [sum(_seconds(n) for n in share) for share in shares]
    total = sum(seconds for _, seconds in SLOW_FIRST) * 2
    assert sum(loads) == total
    assert max(loads) <= total / workers + 2 * SLOW_FIRST[0][1], loads  # no share holds the long tests alone
    assert max(loads) - min(loads) <= 2 * SLOW_FIRST[0][1], loads
    for share in shares:
        long_ones = [n for n in share if _seconds(n)]
        assert share[: len(long_ones)] == long_ones  # the long tests first ...
        assert [_seconds(n) for n in long_ones] == sorted(map(_seconds, long_ones), reverse=True)  # ... longest first
        for prefix, _ in SLOW_FIRST:  # an entry's tests (a module's fixtures) in one worker
            mine = [n for n in long_ones if n.startswith(prefix)]
            assert mine in ([], [n for n in nodeids if n.startswith(prefix)]), prefix  # (collection order)
    assert [n for n in order if not _seconds(n)] == quick  # the rest keeps its order


def test_one_process_runs_the_long_tests_first_in_the_lists_order() -> None:
    nodeids = ["tests/quick/test_a.py::test_it", "tests/lab/test_lab_report.py::test_x", SLOW_FIRST[0][0]]
    assert suite_order(nodeids, 1) == [SLOW_FIRST[0][0], "tests/lab/test_lab_report.py::test_x", nodeids[0]]
