"""Seeds committed a whole hand ahead (API.md v1.2), and no back door in stored data (issue #25): a ``plain:``
pledge appended with the application's database role is never dealt from, and the hand fails verification;
tables of contract v1.1 keep verifying and move to the new schedule at their next hand."""

from __future__ import annotations

import hashlib
import random
import secrets
from typing import Any

import pytest
from django.db import connection, transaction
from django.utils import timezone
from msgspec.structs import replace

from rules import PLAIN_PREFIX, Context, shuffle_deck
from tables import decision, loader, services
from tables.models import Hand
from tables.store import NewEvent, append, load_stream
from tables.verify import verification_ok, verify_hand
from tests.support.play import make_players, make_table, play_hands, state_of, step

pytestmark = pytest.mark.django_db(transaction=True)


def _append_as_application_role(table_id: int, event_type: str, data: dict[str, Any]) -> None:
    """What whoever holds the application's database credentials can do: append an event with a correct chain."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user")
        assert "owner" not in cursor.fetchone()[0]  # the application's role, not the owner's
    last = load_stream(table_id)[-1]
    with transaction.atomic():
        append(
            stream_id=table_id,
            expected_version=last.version,
            prev_hash=last.hash,
            events=[NewEvent(type=event_type, data=data, metadata={"actor": None})],
            recorded_at=timezone.now(),
        )
    loader.forget_all()


def inject_plain_pledge(table_id: int, number: int, seed_hex: str) -> None:
    """Issue #25's injected pledge: a ``SeedCommitted`` of hand ``number`` in the core's ``plain:`` form, appended
    as the application's role with a correct chain hash."""
    _append_as_application_role(
        table_id,
        "SeedCommitted",
        {
            "number": number,
            "seed_commitment": hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest(),
            "sealed_seed": PLAIN_PREFIX + seed_hex,
        },
    )


@pytest.mark.parametrize("preset", ["classic", "italian"])
def test_a_plain_pledge_appended_by_the_application_role_is_never_dealt_from_and_fails_verification(preset):
    players = make_players(3, prefix=f"inj{preset[:2]}")
    table = make_table(preset)
    rng = random.Random(7)
    play_hands(table, players, 1, rng)
    state = state_of(table.pk)
    target = state.hands_opened + 1  # the next hand to open: its seed was committed a hand ago
    assert state.pledge_for(target) is not None
    chosen = secrets.token_bytes(32).hex()
    inject_plain_pledge(table.pk, target, chosen)
    pledge = state_of(table.pk).pledge_for(target)
    assert pledge is not None and pledge.sealed == PLAIN_PREFIX + chosen  # the table now "holds" the chosen seed
    for _ in range(600):
        if state_of(table.pk).settled_through >= target:
            break
        assert step(table, players, rng)
    stream = load_stream(table.pk)
    ended = next(e for e in stream if e.type in ("HandSettled", "HandAbandoned") and e.data["number"] == target)
    # the table refused to deal from it: the hand was abandoned before any card, every stake returned
    assert ended.type == "HandAbandoned" and ended.data["reason"] == "seed_unavailable", ended
    assert not [e for e in stream if e.type == "CardDealt" and e.data["number"] == target]
    hand = Hand.objects.get(table=table, number=target)
    report = verify_hand(hand, record=False)
    assert not verification_ok(report) and "plain text" in report["commitment"], report
    # the table plays on from its own committed seeds (an abandoned hand leaves it idle until a player is
    # ready), and those hands verify
    services.table_act(table_id=table.pk, user=players[0], action="sit_in", args={})
    play_hands(table, players, 1, rng)
    later = Hand.objects.filter(table=table, status="settled", number__gt=target).first()
    assert later is not None and verification_ok(verify_hand(later, record=False))
    assert shuffle_deck(bytes.fromhex(chosen), "", target)  # (the chosen deck existed; it was never dealt)


def _v11_context(**fields: Any) -> Context:
    """The context of the contract v1.1 shell: one pending seed, one fresh seed committed at a hand's end."""
    seeds, fresh = fields.pop("seeds", ()), fields.pop("next_seeds", ())
    return Context(
        **fields, seed=seeds[0] if seeds else None, next_seed=replace(fresh[0], number=None) if fresh else None
    )


@pytest.mark.parametrize("preset", ["classic", "spanish"])
def test_hands_of_contract_v11_still_verify_and_the_table_moves_to_committing_a_hand_ahead(monkeypatch, preset):
    players = make_players(3, prefix=f"v11{preset[:2]}")
    monkeypatch.setattr(decision, "Context", _v11_context)
    table = make_table(preset)
    rng = random.Random(11)
    play_hands(table, players, 2, rng)
    v11_hands = state_of(table.pk).hands_opened
    assert [e.data["number"] for e in load_stream(table.pk) if e.type == "SeedCommitted"][0:1] == [1]
    monkeypatch.undo()
    play_hands(table, players, 3, rng)
    stream = load_stream(table.pk)
    committed = {e.data["number"]: e.version for e in stream if e.type == "SeedCommitted"}
    first_card = {}
    opened = {}
    for e in stream:
        if e.type == "CardDealt":
            first_card.setdefault(e.data["number"], e.version)
        elif e.type == "HandOpened":
            opened[e.data["number"]] = e.version
    # from the switch on (the first opening under v1.2 commits the next two hands), each hand's commitment was
    # public before the first card of the hand before it, and from then on before that hand opened
    for number in range(v11_hands + 2, max(first_card) + 1):
        assert committed[number] < first_card[number - 1], (number, committed, first_card)
        if number >= v11_hands + 3:
            assert committed[number] < opened[number - 1], (number, committed, opened)
    for hand in Hand.objects.filter(table=table).exclude(status="in_play"):
        report = verify_hand(hand, full=True, record=False)
        assert verification_ok(report), (hand.number, report)
