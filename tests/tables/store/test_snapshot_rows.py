"""Snapshots and the hands' cached starting states are data (issue #12): a row that does not decode to a table
state is logged and ignored, the state is rebuilt from the events, and nothing in a row is ever executed.

They are also sealed (AES-256-GCM under the seed-sealing key, outside the database, bound to the row they are
for): a state holds the face-down cards of a hand in play, which nobody reading the database may see, and the
application's role writes these caches, so its credentials must not be able to plant a state either."""

from __future__ import annotations

import base64
import json
import logging
import os
import random

import msgspec
import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from django.db import connection
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gamemath.cards import CANONICAL_DECK
from gamemath.enums import Category
from rules import fold, state_to_json
from tables import loader, snapshots
from tables.models import Hand, Snapshot
from tables.store import load_stream
from tables.verify import verification_ok, verify_hand
from tests.conftest import owner_cursor
from tests.support.play import make_players, make_table, play_hands

pytestmark = pytest.mark.django_db(transaction=True)

MARKER = "{marker}"  # each test's own file (under its tmp_path): parallel runs never share it

GARBAGE = [
    # what an attacker with write access would store to run code in every process loading it
    json.dumps({"__reduce__": ["os.system", [f"touch {MARKER}"]]}),
    json.dumps({"py/object": "os.system", "args": [f"touch {MARKER}"]}),
    json.dumps("gASVIAAAAAAAAACMAm9zlIwGc3lzdGVtlJOUjAV0b3VjaJSFlFKULg=="),  # a serialised Python object
    json.dumps({"version": "12", "seats": "everyone"}),
    json.dumps([1, 2, 3]),
    "null",
]


@pytest.fixture
def played() -> tuple[int, object]:
    players = make_players(3)
    table = make_table("classic")
    play_hands(table, players, 2, random.Random(12))
    from_scratch = fold(loader.decode(e) for e in load_stream(table.pk))
    return table.pk, from_scratch


@pytest.mark.parametrize("garbage", GARBAGE)
def test_a_snapshot_row_that_does_not_decode_is_ignored_and_rebuilt(played, garbage, caplog, tmp_path):
    table_id, from_scratch = played
    marker = tmp_path / "was-executed"
    garbage = garbage.replace(MARKER, str(marker))
    with owner_cursor() as cursor:  # written as the owner could (the application's role could too: a cache)
        cursor.execute("UPDATE tables_snapshot SET state = %s::jsonb WHERE table_id = %s", [garbage, table_id])
    loader.forget_all()
    with caplog.at_level(logging.WARNING, logger="tables.snapshots"):
        loaded = loader.load_table(table_id)
    assert loaded.source == "events" and loaded.snapshot_version == 0
    assert loaded.state == from_scratch
    assert f"the snapshot of table {table_id} does not decode" in caplog.text
    assert not marker.exists()


def test_a_snapshot_of_another_version_is_ignored(played, caplog):
    table_id, from_scratch = played
    snapshot = Snapshot.objects.get(table_id=table_id)
    with owner_cursor() as cursor:
        cursor.execute("UPDATE tables_snapshot SET version = version - 1 WHERE table_id = %s", [table_id])
    loader.forget_all()
    with caplog.at_level(logging.WARNING, logger="tables.snapshots"):
        loaded = loader.load_table(table_id)
    assert loaded.source == "events" and loaded.state == from_scratch
    assert f"is not sealed by this server for snapshot:{table_id}:{snapshot.version - 1}:" in caplog.text


def test_snapshots_are_stored_as_the_json_of_the_rules_codec(played):
    table_id, _ = played
    snapshot = Snapshot.objects.get(table_id=table_id)
    assert snapshot.schema == snapshots.SNAPSHOT_SCHEMA
    events = load_stream(table_id)[: snapshot.version]
    sealed = snapshots.state_json_from_db(
        snapshot.state, binding=snapshots.snapshot_binding(table_id, snapshot.version)
    )
    assert sealed == json.loads(json.dumps(state_to_json(fold(loader.decode(e) for e in events))))
    assert set(snapshot.state) == {"sealed"} and snapshot.state["sealed"].startswith("v1:")
    hand = Hand.objects.filter(table_id=table_id).order_by("number").last()
    binding = snapshots.hand_start_binding(table_id, hand.start_version)
    assert isinstance(hand.start_state, dict)
    assert snapshots.state_json_from_db(hand.start_state, binding=binding)["version"] == hand.start_version
    loader.forget_all()
    assert loader.load_table(table_id).source == "snapshot"  # a sealed snapshot of this server is used


def _plant(table_id: int, change) -> None:  # type: ignore[no-untyped-def]
    """Rewrite the table's snapshot as the application's role can (it writes snapshots): a changed state sealed
    in the same form under the same key id, but with a key of the attacker's own (he holds none of the server's)."""
    snapshot = Snapshot.objects.get(table_id=table_id)
    state = snapshots.state_json_from_db(snapshot.state, binding=snapshots.snapshot_binding(table_id, snapshot.version))
    change(state)
    version, key_id, _, _ = snapshot.state["sealed"].split(":")
    nonce = os.urandom(12)
    binding = f"casino-state:{snapshots.snapshot_binding(table_id, snapshot.version)}".encode()
    forged = AESGCM(os.urandom(32)).encrypt(nonce, json.dumps(state).encode(), binding)
    row = {"sealed": ":".join((version, key_id, base64.b64encode(nonce).decode(), base64.b64encode(forged).decode()))}
    with connection.cursor() as cursor:
        cursor.execute("UPDATE tables_snapshot SET state = %s::jsonb WHERE table_id = %s", [json.dumps(row), table_id])


@pytest.mark.parametrize(
    "change",
    [
        lambda state: state["seats"][0].update(username="mallory"),
        lambda state: state.update(banker_seat=None, last_banker_seat=None),
        lambda state: state.update(hands_opened=state["hands_opened"] + 1),
    ],
)
def test_a_planted_state_is_not_believed_even_with_a_copied_seal(played, change, caplog):
    table_id, from_scratch = played
    _plant(table_id, change)
    loader.forget_all()
    with caplog.at_level(logging.WARNING, logger="tables.snapshots"):
        loaded = loader.load_table(table_id)
    assert loaded.source == "events" and loaded.state == from_scratch
    assert f"the snapshot of table {table_id} is not sealed by this server" in caplog.text


def test_a_snapshot_copied_from_another_table_is_not_believed(played, caplog):
    table_id, _ = played
    players = make_players(3, prefix="other")
    other = make_table("classic")
    play_hands(other, players, 2, random.Random(13))
    other_row = Snapshot.objects.get(table_id=other.pk)
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE tables_snapshot SET state = %s::jsonb, version = %s, last_hash = %s WHERE table_id = %s",
            [json.dumps(other_row.state), other_row.version, other_row.last_hash, table_id],
        )
    loader.forget_all()
    with caplog.at_level(logging.WARNING, logger="tables.snapshots"):
        loaded = loader.load_table(table_id)
    assert loaded.source == "events"
    assert "is not sealed by this server" in caplog.text


@pytest.mark.parametrize("garbage", GARBAGE)
def test_a_cached_starting_state_that_does_not_decode_is_ignored(played, garbage, caplog, tmp_path):
    table_id, _ = played
    marker = tmp_path / "was-executed"
    garbage = garbage.replace(MARKER, str(marker))
    hand = Hand.objects.filter(table_id=table_id, status="settled").order_by("number").first()
    with owner_cursor() as cursor:
        cursor.execute("UPDATE tables_hand SET start_state = %s::jsonb WHERE id = %s", [garbage, hand.pk])
    hand.refresh_from_db()
    with caplog.at_level(logging.WARNING, logger="tables.snapshots"):
        report = verify_hand(hand)
    assert verification_ok(report)
    assert not marker.exists()
    if garbage != "null":  # (null is simply "no cache")
        assert f"the cached starting state of hand {hand.pk} does not decode" in caplog.text


def _hands_of(state):
    for hand in (state.hand, state.last_hand.hand if state.last_hand else None):
        if hand is not None:
            yield hand


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_sealed_state_is_as_long_whatever_its_hidden_cards(played, data):
    """The sealed text's length is the same whichever cards, totals and categories the hands hold: a reader of the
    database (or of a backup) cannot tell a picture from a pip, or a 7½ from a 3, by its length (issue #42)."""
    table_id, state = played
    binding = snapshots.snapshot_binding(table_id, state.version)
    expected = len(snapshots.state_to_db(state, binding=binding))
    card = st.sampled_from(CANONICAL_DECK)

    def redealt(hand):
        return msgspec.structs.replace(
            hand,
            cards=tuple(data.draw(card) for _ in hand.cards),
            total_hp=None if hand.total_hp is None else data.draw(st.integers(0, 99)),
            category=None if hand.category is None else data.draw(st.sampled_from(list(Category))),
        )

    variant = state
    for hand in _hands_of(state):
        changed = msgspec.structs.replace(
            hand, banker=redealt(hand.banker), punters=tuple(redealt(p) for p in hand.punters)
        )
        if variant.hand is hand:
            variant = msgspec.structs.replace(variant, hand=changed)
        else:
            variant = msgspec.structs.replace(
                variant, last_hand=msgspec.structs.replace(variant.last_hand, hand=changed)
            )
    assert len(snapshots.state_to_db(variant, binding=binding)) == expected
