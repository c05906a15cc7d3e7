"""The seed of a hand in play is sealed at rest (DESIGN.md principle 11): no table of the database holds it or
the hand's undealt cards, on any preset or bank; a lost sealing key abandons the hand in play with every stake
returned; hands of the old form (committed as they opened) still verify after the switch."""

from __future__ import annotations

import random
import re
from io import StringIO

import pytest
from django.core.management import call_command

from ledger import selectors as ledger_selectors
from rules import shuffle_deck
from tables import fairness, services
from tables.models import Hand
from tables.store import load_stream
from tables.verify import verification_ok, verify_hand
from tests.conftest import owner_cursor
from tests.support.fairness_tools import all_database_text
from tests.support.play import make_players, make_table, play_hands, state_of, step

pytestmark = pytest.mark.django_db(transaction=True)


def _play_until_cards_are_out(table, players, rng) -> None:  # type: ignore[no-untyped-def]
    for _ in range(400):
        state = state_of(table.pk)
        hand = state.hand
        if hand is not None and hand.in_play and hand.next_card > 0 and any(h.stake for h in hand.punters):
            return
        assert step(table, players, rng), "the table is stuck"
    raise AssertionError("no hand in play with cards out")


def _in_order(cards: list[str]) -> re.Pattern[str]:
    """The cards in this order, each as a whole code, anything short between them (JSON, repr, any serialisation)."""
    return re.compile(".{0,24}?".join(rf"(?<![0-9]){re.escape(c)}(?![0-9OCEB])" for c in cards), re.DOTALL)


@pytest.mark.parametrize("bank", ["player", "house"])
@pytest.mark.parametrize("preset", ["classic", "italian", "spanish", "hungarian"])
def test_no_table_of_the_database_holds_the_seed_or_the_undealt_deck_of_a_hand_in_play(preset, bank):
    players = make_players(3, prefix=f"rest{preset[:2]}{bank[0]}")
    table = make_table(preset, bank=bank)
    rng = random.Random(7)
    play_hands(table, players, 1, rng)
    _play_until_cards_are_out(table, players, rng)
    state = state_of(table.pk)
    hand = state.hand
    seed = fairness.unseal(table.pk, state.pledge)  # what only the key's holder can read
    assert seed is not None and hand is not None and hand.client_seed
    undealt = shuffle_deck(bytes.fromhex(seed), hand.client_seed, hand.number)[hand.next_card :]
    pattern = _in_order(undealt[:6])
    texts = all_database_text()
    assert {"tables_event", "tables_snapshot", "tables_hand"} <= set(texts)
    for name, text in texts.items():
        assert seed not in text, f"the seed of the hand in play is readable in {name}"
        assert not pattern.search(text), f"the undealt deck of the hand in play is readable in {name}"


def test_a_lost_sealing_key_abandons_the_hand_in_play_and_returns_every_stake(settings):
    players = make_players(3, prefix="lost")
    table = make_table("classic")
    rng = random.Random(3)
    play_hands(table, players, 1, rng)
    state = state_of(table.pk)
    assert state.hand is not None and state.hand.phase == "betting" and not any(h.stake for h in state.hand.punters)
    before = ledger_selectors.wallet_balances({p.pk for p in players})
    _play_until_cards_are_out(table, players, rng)
    number = state_of(table.pk).hand.number
    settings.SEED_SEALING_KEYS = "replacement:" + "A" * 43 + "="  # the old key is gone; a new one seals from now on
    settings.SEED_SEALING_KEY_FILE = ""
    for _ in range(200):
        if any(e.type == "HandAbandoned" and e.data["number"] == number for e in load_stream(table.pk)):
            break
        assert step(table, players, rng)
    abandoned = next(e for e in load_stream(table.pk) if e.type == "HandAbandoned" and e.data["number"] == number)
    assert abandoned.data["reason"] == "seed_unavailable" and abandoned.data["server_seed"] == ""
    assert ledger_selectors.wallet_balances({p.pk for p in players}) == before  # every stake came back
    hand = Hand.objects.get(table=table, number=number)
    assert hand.status == "abandoned"
    report = verify_hand(hand)
    assert report["ledger"] == "ok" and report["chain"] == "ok" and report["checkpoint"] == "ok", report
    assert "abandoned because its sealed seed could not be opened" in report["commitment"]
    # no committed seed is ever replaced (contract v1.2): the hands already committed under the lost key are
    # abandoned in turn when they need their seed; the hands committed since are sealed under the new key, and
    # the table plays on with them, and those hands verify
    assert [p.number for p in state_of(table.pk).pledges] == [number + 1, number + 2]
    assert not any(p.sealed.startswith("v1:replacement:") for p in state_of(table.pk).pledges)
    for _ in range(600):
        if Hand.objects.filter(table=table, status="settled", number__gt=number).exists():
            break
        if not step(table, players, rng):  # an abandoned hand leaves the table idle until a player is ready
            services.table_act(table_id=table.pk, user=players[0], action="sit_in", args={})
    later = Hand.objects.filter(table=table, status="settled", number__gt=number).first()
    assert later is not None and later.number > number + 2  # the first hand whose seed the new key sealed
    assert verification_ok(verify_hand(later)), verify_hand(later)


def test_hands_of_the_old_form_still_verify_and_the_table_switches_over(monkeypatch):
    """Hands recorded before seeds were committed ahead: no SeedCommitted, the seed in HandOpened (the opening
    command's entropy), the client seed fixed at the opening. They are written here by the core as it ran then
    (no seed in the context, no commitment at the table's creation)."""
    from rules.draft import Draft

    monkeypatch.setattr(Draft, "commit_seed", lambda self, number: None)
    monkeypatch.setattr(fairness, "draw_next_seeds", lambda table_id, state: ())
    players = make_players(3, prefix="old")
    table = make_table("classic")
    rng = random.Random(5)
    play_hands(table, players, 2, rng)
    monkeypatch.undo()
    play_hands(table, players, 2, rng)
    stream = load_stream(table.pk)
    opened = [e for e in stream if e.type == "HandOpened"]
    assert opened[0].data["server_seed"] and opened[0].data["client_seed"]  # the old form
    assert opened[-1].data["server_seed"] == "" and opened[-1].data["client_seed"] == ""  # committed ahead
    assert not any(e.type == "SeedCommitted" for e in stream if e.version < opened[1].version)
    for hand in Hand.objects.filter(table=table).exclude(status="in_play"):
        assert verification_ok(verify_hand(hand, full=True)), (hand.number, verify_hand(hand, full=True))
    out = StringIO()
    call_command("verify_hands", "--all", stdout=out)
    assert " 0 fail" in out.getvalue()


@pytest.mark.parametrize(("preset", "bank"), [("classic", "player"), ("spanish", "house"), ("hungarian", "player")])
def test_no_row_of_the_hand_in_play_holds_a_face_down_card(preset, bank):
    """A face-down card is sealed at rest: the hand's events, the table's snapshot and the hand's row (its cached
    starting state) hold no face-down card of the hand in play (before v1.2 its CardDealt and, at tables that deal
    as a hand opens, the snapshot held it in clear)."""
    players = make_players(3, prefix=f"fd{preset[:2]}{bank[0]}")
    table = make_table(preset, bank=bank)
    rng = random.Random(5)
    play_hands(table, players, 1, rng)
    for _ in range(400):
        state = state_of(table.pk)
        hand = state.hand
        face_down = {
            c for h in (hand.punters if hand else ()) for c, up in zip(h.cards, h.face_up, strict=True) if not up
        }
        if hand is not None and hand.in_play and face_down:
            break
        assert step(table, players, rng), "the table is stuck"
    else:
        raise AssertionError("no hand in play with a face-down card")
    opened = Hand.objects.get(table=table, number=hand.number).opened_version
    rows = []
    with owner_cursor() as cursor:
        cursor.execute(
            "SELECT data::text, metadata::text, hash FROM tables_event WHERE stream_id = %s AND version >= %s",
            [table.pk, opened],
        )
        rows += [" ".join(row) for row in cursor.fetchall()]
        cursor.execute("SELECT state::text FROM tables_snapshot WHERE table_id = %s", [table.pk])
        rows += [row[0] for row in cursor.fetchall()]
        cursor.execute("SELECT coalesce(start_state::text, '') FROM tables_hand WHERE table_id = %s", [table.pk])
        rows += [row[0] for row in cursor.fetchall()]
    text = "\n".join(rows)
    for card in face_down:  # as any JSON would write it (the sealed forms are base64: no quotes inside)
        assert f'"{card}"' not in text, card
    assert '"sealed_card": "v1:' in text


def test_sealed_face_down_cards_all_have_one_length_and_the_old_form_still_opens():
    """Issue #42: a sealed card used to keep its code's length (3 characters a picture, 2 a pip), so whoever reads
    the events (here the application's own database role, without the sealing key) classified every face-down
    card. Now every ``sealed_card`` of every hand has the same length, pictures and pips alike; a card sealed in
    the old form (the bare code) still opens."""
    from django.db import connection

    players = make_players(3, prefix="len")
    table = make_table("spanish", bank="house")  # face-down cards from the opening on
    play_hands(table, players, 12, random.Random(11))
    with connection.cursor() as cursor:  # the attacker's read: the app role, a raw cursor on the events
        cursor.execute(
            "SELECT (data->>'number')::int, (data->>'deck_index')::int, data->>'sealed_card' FROM tables_event "
            "WHERE stream_id = %s AND type = 'CardDealt' AND data->>'sealed_card' IS NOT NULL",
            [table.pk],
        )
        sealed = cursor.fetchall()
    cards = [fairness.unseal_card(table.pk, number, index, text) for number, index, text in sealed]
    pictures = {len(text) for (_, _, text), card in zip(sealed, cards, strict=True) if len(card) == 3}
    pips = {len(text) for (_, _, text), card in zip(sealed, cards, strict=True) if len(card) == 2}
    assert pictures and pips, "the hands dealt no picture or no pip face down"  # both kinds were sealed...
    assert pictures == pips and len(pictures) == 1, (pictures, pips)  # ...and no length tells them apart
    for card in ("10B", "1O"):  # sealed as before issue #42: the bare code
        old = fairness._seal_bytes(card.encode(), fairness._card_associated_data(table.pk, 1, 7))
        assert fairness.unseal_card(table.pk, 1, 7, old) == card
