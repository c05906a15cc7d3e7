"""One card face everywhere (issue #46): the player client, the admin and ``replay_hand`` name the 40 cards of the
Spanish pack from one catalogue (``kit.card_names``, its English words those of ``gamemath.cards``), and the admin
draws the client's card pictures instead of French suits."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import translation

from gamemath.cards import CANONICAL_DECK, card_words
from kit.card_names import card_name
from tables.live.words import client_words
from tests.support.admin_fixtures import play_table

NAMES = {
    "es": {"12O": "rey de oros", "11C": "caballo de copas", "10E": "sota de espadas", "1B": "as de bastos"},
    "it": {"12O": "re di denari", "11C": "cavallo di coppe", "10E": "fante di spade", "1B": "asso di bastoni"},
    "en": {"12O": "king of coins", "11C": "horse of cups", "10E": "jack of swords", "1B": "ace of clubs"},
}
FRENCH = re.compile("[\u2660\u2663\u2665\u2666]")  # spades, clubs, hearts, diamonds


def test_the_catalogue_in_english_is_the_operators_notation_for_all_40_cards():
    with translation.override("en"):
        assert [card_name(code) for code in CANONICAL_DECK] == [card_words(code) for code in CANONICAL_DECK]


@pytest.mark.parametrize("language", sorted(NAMES))
def test_the_spanish_pack_is_named_in_each_language_and_the_client_gets_the_same_words(language):
    with translation.override(language):
        assert {code: card_name(code) for code in NAMES[language]} == NAMES[language]
        words = client_words()
        for code, name in NAMES[language].items():
            rank, suit = code[:-1], code[-1]
            assert words["card_name"] % {"rank": words["ranks"][rank], "suit": words["suits"][suit]} == name


@pytest.mark.django_db
def test_the_admin_and_replay_hand_name_cards_alike_and_draw_the_clients_pictures(as_auditor):
    played = play_table(hands=1, seed=3, prefix="cn", bank="house")
    hand = played.settled[0]
    page = as_auditor.get(f"/admin/tables/hand/{hand.pk}/change/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert not FRENCH.search(page)
    assert "/static/play/cards.js" in page and "/static/admin_cards/cards.js" in page
    deck = re.search(r"<th>deck</th><td>(.*?)</td>", page, re.S)
    assert deck is not None
    shown = re.findall(r'data-card="(\w+)"[^>]*>([^<]+)<', deck.group(1))
    assert len(shown) == len(CANONICAL_DECK) and all(name == card_words(code) for code, name in shown)
    chips = re.findall(r'class="card[^"]*" data-card="(\w+)" title="[^"]*">([^<]+)<', page)
    assert chips and all(name == card_words(code) for code, name in chips)
    out = StringIO()
    call_command("replay_hand", hand.pk, stdout=out)
    text = out.getvalue()
    assert not FRENCH.search(text)
    assert not re.search(r"\b(?:1|2|3|4|5|6|7|10|11|12)[OCEB]\b", text), "a raw card code in replay_hand"
    assert any(card_words(code) in text for code in CANONICAL_DECK)
