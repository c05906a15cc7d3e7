"""Every hand played through the service verifies; tampering is caught; the read models rebuild exactly."""

from __future__ import annotations

import random

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tables import loader
from tables.hand_events import replay_hand
from tables.models import Hand, HandParticipant, TableSeat
from tables.projection_rebuild import rebuild
from tables.verify import verification_ok, verify_hand
from tests.conftest import owner_cursor
from tests.support.play import make_players, make_table, play_hands

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def rng() -> random.Random:
    return random.Random(2026)


def test_many_hands_of_every_preset_verify_rebuild_and_reconcile(rng):
    for preset in ("classic", "italian", "spanish", "hungarian"):
        for bank in ("player", "house"):
            players = make_players(4 if bank == "player" else 3, prefix=f"{preset[:2]}{bank[0]}")
            play_hands(make_table(preset, bank=bank), players, 4, rng)
    hands = Hand.objects.exclude(status="in_play")
    assert hands.count() >= 32
    for hand in hands:
        report = verify_hand(hand)
        assert verification_ok(report), (hand.pk, report)
    _, differences = rebuild()
    assert differences == []
    call_command("rebuild_projections")
    call_command("verify_hands", "--all")
    call_command("reconcile")


def _settled_hand(rng) -> Hand:
    players = make_players(3)
    table = make_table("classic")
    play_hands(table, players, 2, rng)
    return Hand.objects.filter(table=table, status="settled").order_by("number").first()


def _tamper(sql: str, params: list[object]) -> None:
    # as the owner (or a superuser) could, behind the triggers: the application's role cannot
    with owner_cursor(triggers_off=("tables_event", "ledger_posting", "ledger_transaction")) as cursor:
        cursor.execute(sql, params)


def test_an_altered_event_is_reported_as_a_broken_chain_at_that_event(rng):
    hand = _settled_hand(rng)
    target = hand.opened_version + 2
    _tamper(
        'UPDATE tables_event SET metadata = metadata || \'{"request_id": "forged"}\' '
        "WHERE stream_id = %s AND version = %s",
        [hand.table_id, target],
    )
    report = verify_hand(hand)
    assert report["chain"].startswith(f"event {target} ")
    assert "altered" in report["chain"]
    with pytest.raises(CommandError, match="does NOT verify"):
        call_command("verify_hand", str(hand.pk))


def test_a_forged_card_fails_shuffle_replay_and_chain(rng):
    hand = _settled_hand(rng)
    dealt = next(
        iter(
            Hand.objects.raw(
                "SELECT 1 AS id, version, data->>'card' AS card FROM tables_event WHERE stream_id = %s "
                "AND type = 'CardDealt' AND version > %s ORDER BY version LIMIT 1",
                [hand.table_id, hand.opened_version],
            )
        )
    )
    # a face-down card is stored sealed, so the real card is not known here: a forged "7O" is the real card once in
    # 40 hands; then the forgery is "7C" (never both)
    for other in ("7O", "7C"):
        if other == dealt.card:
            continue
        _tamper(
            "UPDATE tables_event SET data = jsonb_set(data, '{card}', to_jsonb(%s::text)) "
            "WHERE stream_id = %s AND version = %s",
            [other, hand.table_id, dealt.version],
        )
        loader.forget_all()  # this process's cache of the states it committed: the verification reads what is stored
        report = verify_hand(hand)
        if report["shuffle"] != "ok":
            break
    assert report["shuffle"].startswith(f"event {dealt.version}: dealt {other}")
    assert report["replay"].startswith(f"event {dealt.version} (CardDealt) differs")
    assert report["chain"].startswith(f"event {dealt.version} ")


def test_a_missing_ledger_posting_is_reported(rng):
    hand = _settled_hand(rng)
    _tamper(
        "DELETE FROM ledger_posting WHERE transaction_id IN (SELECT id FROM ledger_transaction "
        "WHERE hand_id = %s AND kind = 'hand_settlement')",
        [hand.pk],
    )
    _tamper("DELETE FROM ledger_transaction WHERE hand_id = %s AND kind = 'hand_settlement'", [hand.pk])
    report = verify_hand(hand)
    assert report["ledger"].startswith("no ledger transaction for event:")
    assert report["commitment"] == report["shuffle"] == report["replay"] == report["chain"] == "ok"


def test_the_cached_starting_state_gives_the_same_verdict_as_a_full_fold(rng):
    hand = _settled_hand(rng)
    assert verify_hand(hand) == verify_hand(hand, full=True)
    Hand.objects.filter(pk=hand.pk).update(start_state={"not": "a state"})  # a broken cache is simply ignored
    hand.refresh_from_db()
    assert verification_ok(verify_hand(hand))


def test_replay_steps_through_every_event_of_the_hand(rng):
    hand = _settled_hand(rng)
    steps = replay_hand(hand)
    assert steps[0][0].type == "HandOpened"
    assert steps[-1][0].type == "HandSettled"
    assert [s.version for s, _ in steps] == list(range(hand.opened_version, hand.closed_version + 1))
    assert steps[-1][1].hand.phase == "settled"


def test_rebuild_names_each_read_model_that_differs_from_the_events(rng):
    hand = _settled_hand(rng)
    table_id = hand.table_id
    assert rebuild([table_id])[1] == []
    seated = TableSeat.objects.filter(table_id=table_id).order_by("seat").first()
    participant = HandParticipant.objects.filter(hand=hand).order_by("user_id").first()
    _tamper("UPDATE tables_table SET hands_played = hands_played + 7 WHERE id = %s", [table_id])
    _tamper("UPDATE tables_hand SET banker_net = coalesce(banker_net, 0) + 1 WHERE id = %s", [hand.pk])
    _tamper("DELETE FROM tables_handparticipant WHERE hand_id = %s AND user_id = %s", [hand.pk, participant.user_id])
    _tamper("DELETE FROM tables_tableseat WHERE table_id = %s AND user_id = %s", [table_id, seated.user_id])
    sink, differences = rebuild([table_id])
    assert len(differences) == 4, differences
    lobby, hand_row, people, seats = differences
    assert lobby.startswith(f"table {table_id}: hands_played is ") and lobby.endswith(
        f"events say {sink.lobby[table_id]['hands_played']!r}"
    )
    assert hand_row.startswith(f"table {table_id} hand #{hand.number}: banker_net is ")
    assert people.startswith(f"table {table_id} hand #{hand.number}: participants are ")
    assert (
        seats.startswith("seats are ")
        and f"({table_id}, {seated.user_id}): {seated.seat}" in seats.split("events say")[1]
    )
