"""Loading a table reads the sealed snapshot only when it is newer than this process's cached state (issue #33:
the live processes load a table on every change; their cache is newer than the snapshot between hand ends)."""

from __future__ import annotations

import logging
import random

import pytest

from rules import fold
from tables import loader
from tables.store import load_stream
from tests.conftest import owner_cursor
from tests.support.play import make_players, make_table, play_hands

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def table_id() -> int:
    players = make_players(2)
    table = make_table("classic")
    play_hands(table, players, 2, random.Random(33))
    return int(table.pk)


def _cache_at(table_id: int, version: int) -> None:
    """This process's cache holds the table's state at ``version`` (a commit since came from another process)."""
    stream = load_stream(table_id, upto_version=version)
    loader.forget_all()
    loader.remember(table_id, fold(loader.decode(e) for e in stream), stream[-1].hash)


def _plant_snapshot(table_id: int, version: int) -> None:
    with owner_cursor() as cursor:  # a row that would be refused if it were read
        cursor.execute(
            "UPDATE tables_snapshot SET version = %s, state = '\"garbage\"'::jsonb WHERE table_id = %s",
            [version, table_id],
        )


def test_a_snapshot_no_newer_than_the_cached_state_is_not_read(table_id: int, caplog: pytest.LogCaptureFixture) -> None:
    stream = load_stream(table_id)
    latest = stream[-1].version
    _plant_snapshot(table_id, latest - 2)
    _cache_at(table_id, latest - 1)
    with caplog.at_level(logging.WARNING, logger="tables.snapshots"):
        loaded = loader.load_table(table_id)
    assert loaded.source == "cache" and loaded.snapshot_version == latest - 1 and loaded.state.version == latest
    assert loaded.state == fold(loader.decode(e) for e in stream)
    assert "does not decode" not in caplog.text


def test_a_snapshot_newer_than_the_cached_state_is_read_and_checked(
    table_id: int, caplog: pytest.LogCaptureFixture
) -> None:
    stream = load_stream(table_id)
    latest = stream[-1].version
    _plant_snapshot(table_id, latest - 1)
    _cache_at(table_id, latest - 2)
    with caplog.at_level(logging.WARNING, logger="tables.snapshots"):
        loaded = loader.load_table(table_id)
    assert f"the snapshot of table {table_id} does not decode" in caplog.text  # read, refused
    assert loaded.source == "cache" and loaded.state == fold(loader.decode(e) for e in stream)
