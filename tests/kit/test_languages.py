"""Languages (API.md v1.2): ``Accept-Language`` (it, es, hu, en) picks the language of error messages, the player
client and the admin; codes never change. The committed compiled catalogues match their sources."""

from __future__ import annotations

import gettext
import re
from pathlib import Path
from typing import Any

import pytest
from django.utils import translation

from kit.messages import CODE_MESSAGES
from tables.live.words import client_words
from tests.support.api_helpers import assert_error
from tests.support.game_helpers import create_table, deposit, ok, register

pytestmark = pytest.mark.django_db(transaction=True)

LOCALE = Path(__file__).resolve().parents[2] / "locale"
LANGUAGES = ("it", "es", "hu")
NOT_FOUND = {"it": "Non trovato.", "es": "No encontrado.", "hu": "Nem található."}
TAKING_PART = {"it": "stai già giocando", "es": "ya estás participando", "hu": "már részt veszel"}
GAME_NAME = {"it": "Sette e mezzo", "es": "Siete y media", "hu": "Hetedfél", "en": "Seven and a Half"}


def _po_entries(path: Path) -> dict[tuple[str | None, str], str]:
    entries: dict[tuple[str | None, str], str] = {}
    context: str | None = None
    msgid: str | None = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if match := re.fullmatch(r'msgctxt "(.*)"', line):
            context = match.group(1)
        elif match := re.fullmatch(r'msgid "(.*)"', line):
            msgid = match.group(1).replace('\\"', '"')
        elif (match := re.fullmatch(r'msgstr "(.*)"', line)) and msgid is not None:
            if msgid and match.group(1):
                entries[(context, msgid)] = match.group(1).replace('\\"', '"')
            context = msgid = None
    return entries


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_committed_catalogue_matches_its_source_and_translates_every_error_code(language):
    directory = LOCALE / language / "LC_MESSAGES"
    entries = _po_entries(directory / "django.po")
    with (directory / "django.mo").open("rb") as compiled:
        catalogue = gettext.GNUTranslations(compiled)
    for (context, msgid), msgstr in entries.items():
        got = catalogue.pgettext(context, msgid) if context else catalogue.gettext(msgid)
        assert got == msgstr, f"{language}: {msgid!r} compiles to {got!r}, the .po says {msgstr!r}: run msgfmt"
    untranslated = [str(m) for m in CODE_MESSAGES.values() if (None, str(m)) not in entries]
    assert not untranslated, f"{language}: no translation of {untranslated}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_error_messages_follow_accept_language_and_codes_do_not(language, as_player):
    answer = as_player.get("/api/v1/tables/999999", HTTP_ACCEPT_LANGUAGE=language)
    details = assert_error(answer, 404, "not_found")
    assert answer.json()["error"]["message"] == NOT_FOUND[language]
    english = as_player.get("/api/v1/tables/999999", HTTP_ACCEPT_LANGUAGE="en")
    assert assert_error(english, 404, "not_found") == details
    assert english.json()["error"]["message"] == "there is no table 999999"


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_refusal_by_the_rules_is_said_in_the_players_language(language, anon, as_staff):
    table = create_table(as_staff, "classic", bank="house")
    player = register(anon, "lang")
    deposit(as_staff, player, 500)
    ok(player.client.post(f"/api/v1/tables/{table['id']}/seats", {}, format="json"), 201)
    answer = player.client.post(
        f"/api/v1/tables/{table['id']}/actions", {"action": "sit_in"}, format="json", HTTP_ACCEPT_LANGUAGE=language
    )
    assert_error(answer, 409, "illegal_action")
    assert answer.json()["error"]["message"] == TAKING_PART[language]


@pytest.mark.parametrize("language", [*LANGUAGES, "en"])
def test_the_player_client_is_served_in_the_requested_language(language, client):
    page = client.get("/play/", HTTP_ACCEPT_LANGUAGE=language)
    assert page.status_code == 200
    html = page.content.decode()
    assert f'<html lang="{language}">' in html and GAME_NAME[language] in html


def test_the_root_redirects_to_the_client_and_an_unknown_table_page_still_loads(client):
    assert client.get("/").headers["Location"] == "/play/"
    assert client.get("/play/tables/999999/").status_code == 200  # the client itself says "no such table"
    assert client.get("/play/history/").status_code == 200


def test_the_language_menu_sets_the_language_for_pages_and_errors(client, as_player):
    client.post("/i18n/setlang/", {"language": "hu", "next": "/play/"})
    assert "Hetedfél" in client.get("/play/", HTTP_ACCEPT_LANGUAGE="en").content.decode()


ADMIN_USERNAME = [("it", "Nome utente"), ("es", "Nombre de usuario"), ("hu", "Felhasználó")]


@pytest.mark.parametrize(("language", "word"), ADMIN_USERNAME)
def test_the_admin_follows_the_operators_language(language, word, client):
    assert word in client.get("/admin/login/", HTTP_ACCEPT_LANGUAGE=language).content.decode()


def _flat(words: dict[str, Any], prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in words.items():
        if isinstance(value, dict):
            out.update(_flat(value, f"{prefix}{key}."))
        else:
            out[prefix + key] = value
    return out


#: Words that are the same in English and that language (templates of names and numbers; Spanish "total").
SAME_AS_ENGLISH = {"dealt", "result_line", "rtp_margin"}


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_word_of_the_client_is_in_the_language(language):
    with translation.override("en"):
        english = _flat(client_words())
    with translation.override(language):
        words = _flat(client_words())
    same = {key for key, text in words.items() if text == english[key]} - SAME_AS_ENGLISH
    assert same <= ({"total"} if language == "es" else set()), f"{language}: still in English: {sorted(same)}"
