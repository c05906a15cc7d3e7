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
        ([], None, ["-n", str(os.cpu_count() or 1), "--dist", "worksteal"]),
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
