"""The chain hash's canonical form (``gamemath.chainhash``, docs/fairness.md "The hash chain"), as properties:
the server's hash of a stored event is what anyone recomputes from the event as served, whatever the served
event shows of a face-down card; a face-down card never changes a hash (so no hash can test a guess about it),
while every other field does; and every way the API may write a time gives the same canonical time."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gamemath.chainhash import (
    HASH_FORM,
    canonical_time,
    form2_hash,
    private_sha256,
    served_hash,
    stored_public_data,
)

RANKS = ("1", "2", "3", "4", "5", "6", "7", "10", "11", "12")
CARDS = [rank + suit for suit in "OCEB" for rank in RANKS]
scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**40), 2**40), st.text(max_size=12))
#: no deadline: the machine is shared, and a slow example is not a wrong one
PROPERTY = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
times = st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC))


def _stored_and_served(
    extra: dict[str, object], card: str, face_up: bool, index: int, at: datetime
) -> tuple[str, dict[str, object]]:
    """The server's hash of a ``CardDealt`` as stored, and the event as a feed or export serves it."""
    data = {**extra, "number": 3, "card": card, "face_up": face_up, "deck_index": index}
    metadata = {
        "actor": "7",
        "hash_form": HASH_FORM,
        "command": {"ctx": {"entropy": hashlib.sha256(card.encode()).hexdigest()}},
    }
    stored = dict(data)
    if not face_up:
        stored |= {"card": None, "sealed_card": "v1:k:" + hashlib.sha256(json.dumps(data).encode()).hexdigest()}
    digest = form2_hash(
        prev_hash="ab" * 32,
        stream=5,
        version=9,
        type_name="CardDealt",
        data=stored_public_data(stored),
        private=private_sha256(stored, metadata),
        at=canonical_time(at.isoformat()),
        form=HASH_FORM,
    )
    served = {
        "seq": 9,
        "type": "CardDealt",
        "at": at.isoformat().replace("+00:00", "Z"),
        "data": data,  # the hand has ended: the card is shown
        "prev_hash": "ab" * 32,
        "hash": digest,
        "hash_form": HASH_FORM,
        "private_sha256": private_sha256(stored, metadata),
    }
    return digest, served


@PROPERTY
@given(
    st.dictionaries(st.sampled_from(["seat", "hand", "banker", "player_id"]), scalars),
    st.sampled_from(CARDS),
    st.booleans(),
    st.integers(0, 39),
    times,
)
def test_the_served_event_gives_the_stored_hash(extra, card, face_up, index, at):
    digest, served = _stored_and_served(extra, card, face_up, index, at)
    assert served_hash(5, served) == digest


@PROPERTY
@given(st.sampled_from(CARDS), st.sampled_from(CARDS), st.integers(0, 39), times)
def test_a_face_down_card_never_changes_the_public_part_of_a_hash(card, other, index, at):
    _, served = _stored_and_served({}, card, False, index, at)
    guessed = {**served, "data": {**served["data"], "card": other}}
    assert served_hash(5, guessed) == served_hash(5, served)  # what is public tells nothing of the card
    moved = {**served, "data": {**served["data"], "deck_index": (index + 1) % 40}}
    assert served_hash(5, moved) != served["hash"]  # but its position is covered


@PROPERTY
@given(st.sampled_from(CARDS), st.sampled_from(CARDS), st.integers(0, 39), times)
def test_a_face_up_card_is_covered(card, other, index, at):
    _, served = _stored_and_served({}, card, True, index, at)
    changed = {**served, "data": {**served["data"], "card": other}}
    assert (served_hash(5, changed) == served["hash"]) == (card == other)


@PROPERTY
@given(times, st.integers(0, 999_999))
def test_every_way_of_writing_a_utc_time_is_one_canonical_time(at, micros):
    at = at.replace(microsecond=micros)
    forms = {at.isoformat(), at.isoformat().replace("+00:00", "Z"), at.isoformat(timespec="microseconds")}
    assert len({canonical_time(text) for text in forms}) == 1
    assert canonical_time(at.isoformat()) == at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    assert canonical_time((at + timedelta(microseconds=1)).isoformat()) != canonical_time(at.isoformat())
