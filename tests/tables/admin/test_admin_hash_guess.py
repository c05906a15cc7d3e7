"""The auditor's attack of issue #25: the admin shows every event's chain hash, and a face-down card was one of 40
cards at one of 40 deck positions, so 1,600 sha256 guesses recovered it. Now a face-down ``CardDealt`` is stored
with its card sealed (AES-GCM, a fresh nonce) and its hash (form 2, ``gamemath.chainhash``) covers no card in
clear: the same search, with everything the auditor can read (the admin's pages, and every column of the row as
anyone reading the database sees it), matches nothing; while the hash itself is recomputed exactly from the row,
so the search is not failing for want of the right formula."""

from __future__ import annotations

import json
from datetime import UTC

import pytest

from gamemath.chainhash import canonical_time, form1_hash, form2_hash, private_sha256, stored_public_data
from tables.models import Event, Hand
from tables.store import event_hash, load_stream
from tests.support.admin_fixtures import hidden_cards, html_card_codes, play_until_face_down_in_play

pytestmark = pytest.mark.django_db

RANKS = ("1", "2", "3", "4", "5", "6", "7", "10", "11", "12")
CARDS = [rank + suit for suit in "OCEB" for rank in RANKS]


def _guesses(stored, card: str, index: int) -> set[str]:
    """Every hash an attacker could compute for the guess (card at index), from the row as stored."""
    data = {key: value for key, value in stored.data.items() if key != "sealed_card"} | {
        "card": card,
        "deck_index": index,
    }
    common = {"prev_hash": stored.prev_hash, "stream": stored.stream_id, "version": stored.version}
    return {
        form1_hash(
            **common,
            type_name=stored.type,
            data=data,
            metadata=stored.metadata,
            recorded_at=stored.recorded_at.isoformat(),
        ),
        form2_hash(
            **common,
            type_name=stored.type,
            data=stored_public_data(data),
            private=private_sha256(stored.data, stored.metadata),
            at=canonical_time(stored.recorded_at.astimezone(UTC).isoformat()),
        ),
        form2_hash(
            **common,
            type_name=stored.type,
            data=stored_public_data(data),
            private=private_sha256(data, stored.metadata),
            at=canonical_time(stored.recorded_at.astimezone(UTC).isoformat()),
        ),
    }


def test_1600_hash_guesses_do_not_recover_a_face_down_card_of_a_hand_in_play(as_auditor, played):
    state = play_until_face_down_in_play(played)
    table_id = played.table.pk
    hand = Hand.objects.get(table=played.table, number=state.hand.number)
    assert hand.status == "in_play"
    hidden = hidden_cards(state, table_id)
    face_down = [
        e
        for e in load_stream(table_id, after_version=hand.opened_version - 1)
        if e.type == "CardDealt" and not e.data["face_up"]
    ]
    assert face_down
    for stored in face_down:
        # what the auditor reads: the admin's page of the event (its hash, data and metadata) ...
        row = Event.objects.get(table_id=table_id, version=stored.version)
        page = as_auditor.get(f"/admin/tables/event/{row.pk}/change/").content.decode()
        assert stored.hash in page
        assert not html_card_codes(page) & hidden
        # ... and the row itself: no card in clear, only its sealed form
        assert stored.data["card"] is None and stored.data["sealed_card"].startswith("v1:")
        assert not any(f'"{code}"' in json.dumps(stored.data) for code in CARDS)
        # the search, with both hash forms and everything else exactly as stored
        hits = [(card, index) for card in CARDS for index in range(40) if stored.hash in _guesses(stored, card, index)]
        assert hits == []
        # the auditor's formula is the right one: the row as stored gives its hash
        assert (
            event_hash(
                prev_hash=stored.prev_hash,
                stream_id=stored.stream_id,
                version=stored.version,
                type=stored.type,
                data=stored.data,
                metadata=stored.metadata,
                recorded_at=stored.recorded_at,
            )
            == stored.hash
        )


def test_the_same_card_sealed_twice_looks_different():
    from tables import fairness

    first = fairness.seal_card(1, 2, 3, "12O")
    second = fairness.seal_card(1, 2, 3, "12O")
    assert first != second
    assert fairness.unseal_card(1, 2, 3, first) == fairness.unseal_card(1, 2, 3, second) == "12O"
    with pytest.raises(fairness.CardUnavailable):
        fairness.unseal_card(1, 2, 4, first)  # bound to its deck position: it cannot be moved
