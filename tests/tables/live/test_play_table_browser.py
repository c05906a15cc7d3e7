"""The table screen of ``/play/`` as players see it (issue #46), in Debian's chromium on a real uvicorn, in each
language on a desktop and on a 390x844 phone.

Each complaint of the issue is a check here: the outcome said in one sentence per language (no words glued
together), a tie shown with its rule, a player who left not called "the house", the header hidden before signing
in and emptied after signing out, no internal version shown, "Sit out" and "Sit in" never offered together, a
player who sits while bets are open told when he plays, the chips a hand holds explained in one line, the turn,
countdown and actions on the first screen of a phone and in view while scrolling, the result banner in front
until the next deal, the game information the same figures in every language. axe-core finds no WCAG A/AA
violation, no text overflows its box, no request fails. The hands are played through the API (the whole hand
from the page's buttons is tests/tables/live/test_play_browser.py); a tie and a departed player, which a random
deck gives only sometimes, are the real table view with its last hand changed the way the server would send it,
rendered by the page's own ``renderTable``. Screenshots: ``artifacts/play/table-*.png`` (git-ignored).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.support.browser import wait_until
from tests.support.game_helpers import Player, create_table, deposit, ok, register
from tests.support.live_helpers import token_of

pytestmark = pytest.mark.django_db(transaction=True)

AXE = ROOT / "tests" / "vendor" / "axe-core" / "axe.min.js"
ARTIFACTS = ROOT / "artifacts" / "play"
LANGUAGES = ("it", "es", "hu", "en")
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}

#: The result sentence for the viewer, by outcome, as each language says it (n: the chips).
YOU = {
    "it": {"win": "Vinci {n} fiches.", "lose": "Perdi {n} fiches.", "push": "Pari: la puntata ti è restituita.",
           "tie": "Pareggio: vince il banco. Perdi {n} fiches."},
    "es": {"win": "Ganas {n} fichas.", "lose": "Pierdes {n} fichas.", "push": "Empate: se te devuelve la apuesta.",
           "tie": "Empate: los empates los gana la banca. Pierdes {n} fichas."},
    "hu": {"win": "Nyertél {n} zsetont.", "lose": "Vesztettél {n} zsetont.",
           "push": "Döntetlen: visszakapod a tétedet.",
           "tie": "Egyenlőség: ilyenkor a bank nyer. Vesztettél {n} zsetont."},
    "en": {"win": "You win {n} chips.", "lose": "You lose {n} chips.", "push": "A push: your stake is returned.",
           "tie": "A tie: ties go to the bank. You lose {n} chips."},
}  # fmt: skip
TIE_RULE = {"it": "In caso di pareggio vince il banco.", "es": "Los empates los gana la banca.",
            "hu": "Egyenlőségnél a bank nyer.", "en": "Ties go to the bank."}  # fmt: skip
HOUSE = {"it": "la casa", "es": "la casa", "hu": "a kaszinó", "en": "the house"}
AT_SEAT = {"it": "il giocatore al posto {seat}", "es": "el jugador del asiento {seat}",
           "hu": "a(z) {seat}. hely játékosa", "en": "the player at seat {seat}"}  # fmt: skip
DEAL_ME_IN = {"it": "Dammi le carte", "es": "Repárteme", "hu": "Ossz nekem", "en": "Deal me in"}
VERSION_WORD = {"it": "Versione", "es": "Versión", "hu": "Verzió", "en": "Version"}
HELD_BANKER = {
    "it": "15 fiches trattenute: come banco puoi dover pagare 3 volte le puntate di 5.",
    "es": "15 fichas retenidas: como banca puedes pagar 3 veces las apuestas de 5.",
    "hu": "15 zseton zárolva: bankosként a(z) 5 zsetonnyi tét 3-szorosát fizetheted.",
    "en": "15 chips held: as the banker you may pay 3 times the bets of 5.",
}
NEXT_HAND = {"it": "Giochi dalla prossima mano.", "es": "Juegas a partir de la próxima mano.",
             "hu": "A következő leosztástól játszol.", "en": "You play from the next hand."}  # fmt: skip

#: Text elements whose content is wider than their box (clipped or overflowing), measured in the page.
OVERFLOWING = """() => [...document.querySelectorAll('body *')].filter(e => {
  if (!e.offsetParent || e.clientWidth <= 1) return false;  // (a visually hidden label is 1px on purpose)
  if (![...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) return false;
  return e.scrollWidth > e.clientWidth + 1;
}).map(e => e.tagName + '#' + e.id + '.' + e.className + ': ' + e.textContent.trim().slice(0, 40))"""


def _shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"table-{name}.png"))


def _open(browser: Any, server: str, player: Player | None, language: str, viewport: dict[str, int], **extra: Any):
    """A browser of its own for the player (signed in by the page's token cookie), recording failed requests."""
    context = browser.new_context(locale=language, viewport=viewport, **extra)
    context.set_default_timeout(15_000)
    if player is not None:
        context.add_cookies(
            [{"name": "casino_play_token", "value": token_of(player.client), "url": f"http://{server}"}]
        )
    page = context.new_page()
    failed: list[str] = []
    page.on("requestfailed", lambda request: failed.append(f"{request.url} {request.failure}"))
    page.on("pageerror", lambda error: failed.append(f"script error: {error}"))
    page.on("response", lambda r: failed.append(f"{r.url} {r.status}") if r.status >= 500 or r.status == 404 else None)
    return context, page, failed


def _table_page(browser: Any, server: str, player: Player, table_id: int, language: str, viewport: dict[str, int]):
    context, page, failed = _open(browser, server, player, language, viewport)
    page.goto(f"http://{server}/play/tables/{table_id}/")
    try:
        page.wait_for_selector("#game:not([hidden])")
    except Exception as exc:
        raise AssertionError(f"the table never showed: {failed}") from exc
    wait_until(page, "typeof table !== 'undefined' && table !== null")
    return context, page, failed


def _play_one_hand_at_the_house(player: Player, table_id: int) -> dict[str, Any]:
    """Sit, bet the minimum and stand on the first card; the house plays; the view once hand 1 has ended."""
    ok(player.client.post(f"/api/v1/tables/{table_id}/seats", {}, format="json"), 201)
    for _ in range(20):
        view = player.view(table_id)
        if view["last_hand"] is not None:
            return view
        legal = view["you"]["legal_actions"]
        action = next(a for a in ("bet", "stand") if a in legal)
        body = {"amount": view["min_bet"]} if action == "bet" else {}
        ok(player.act(table_id, action, **body))
    raise AssertionError("hand 1 never ended")


def _expected(language: str, row: dict[str, Any], banker: dict[str, Any]) -> str:
    tie = row["category"] != "bust" and row["total_half_points"] == banker["total_half_points"]
    key = "tie" if tie and row["outcome"] == "lose" else row["outcome"]
    return YOU[language][key].format(n=abs(row["net"]))


def _axe(page: Any) -> list[str]:
    page.evaluate(AXE.read_text())  # the tester's script (the page's CSP refuses an injected tag)
    return list(
        page.evaluate(
            "async () => (await axe.run(document, {runOnly: ['wcag2a', 'wcag2aa']})).violations"
            ".map(v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).join(', '))"
        )
    )


def test_the_result_banner_turn_bar_and_header_in_each_language_on_a_desktop_and_a_phone(
    browser, asgi_server, anon, as_staff
):
    table = create_table(as_staff, "classic", bank="house", max_seats=3, turn_timeout_s=120, betting_timeout_s=120)
    player = register(anon, "tb")
    deposit(as_staff, player, 1_000)
    view = _play_one_hand_at_the_house(player, table["id"])
    row = next(r for r in view["last_hand"]["results"] if r["username"] == player.username)
    numbers: dict[str, list[str]] = {}
    for language in LANGUAGES:
        for viewport, kind in ((DESKTOP, "desktop"), (PHONE, "phone")):
            context, page, failed = _table_page(browser, asgi_server, player, table["id"], language, viewport)
            try:
                # the outcome: one sentence of that language, in front, on the first screen
                banner = page.locator("#result-banner")
                assert banner.is_visible()
                assert page.inner_text("#result-lines").strip() == _expected(language, row, view["last_hand"]["banker"])
                box = banner.bounding_box()
                assert box is not None and box["y"] + box["height"] <= viewport["height"], (
                    f"banner below the fold {box}"
                )
                # no internal version shown to players
                assert VERSION_WORD[language] not in page.inner_text("body")
                assert page.query_selector("#version") is None
                # the turn bar: a Bet button (the next hand's bets), on the first screen, and the turn cue
                # (laid out, not only in the page: a pushed view can be drawn just before the page's own read)
                wait_until(page, "(document.querySelector('#actions button[data-action=bet]') || {}).offsetHeight > 0")
                rects = page.eval_on_selector_all(
                    "#actions button", "bs => bs.map(b => [b.getBoundingClientRect().bottom, b.offsetHeight])"
                )
                assert rects and all(bottom <= viewport["height"] for bottom, _ in rects), f"below the fold {rects}"
                state = page.evaluate("[$('status').textContent, $('game').hidden]")
                assert all(height >= 40 for _, height in rects), f"large buttons: {rects} {state} {language} {kind}"
                assert page.evaluate("document.activeElement.closest('#actions') !== null")
                assert page.title() != page.evaluate("PAGE_TITLE"), "the title says it is the player's turn"
                _shot(page, f"{language}-{kind}-result")  # the first screen
                # the turn, countdown and actions stay in view while the page scrolls
                page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
                bar = page.locator("#turn-bar").bounding_box()
                assert bar is not None and -1 <= bar["y"] <= 1, f"the turn bar scrolled away: {bar}"
                assert page.inner_text("#countdown").strip() not in ("", "\u2013")
                page.evaluate("window.scrollTo(0, 0)")
                # sounds off by default, a button turns them on
                assert page.get_attribute("#sound", "aria-pressed") == "false"
                # the game information: the same figures in every language
                page.click("#game-info summary")
                numbers[f"{language}-{kind}"] = re.findall(r"\d+(?:[.,]\d+)?%?", page.inner_text("#rules-words"))
                wait_until(page, "document.getElementById('rtp-flat').textContent !== ''")
                numbers[f"{language}-{kind}"] += [page.inner_text("#rtp-best-play"), page.inner_text("#rtp-flat")]
                assert not page.evaluate(OVERFLOWING), page.evaluate(OVERFLOWING)
                if kind == "desktop":
                    assert not _axe(page)
                _shot(page, f"{language}-{kind}-information")
                assert not failed, failed
            finally:
                context.close()
    assert len({json.dumps(v) for v in numbers.values()}) == 1, numbers
    assert "120" in numbers["en-desktop"] and "5" in numbers["en-desktop"]
    # the player's own turn in hand 2: his cards, the countdown and Card / Stand on the first screen of a phone
    ok(player.act(table["id"], "bet", amount=view["min_bet"]))
    assert "stand" in player.view(table["id"])["you"]["legal_actions"]
    for language in LANGUAGES:
        for viewport, kind in ((DESKTOP, "desktop"), (PHONE, "phone")):
            context, page, failed = _table_page(browser, asgi_server, player, table["id"], language, viewport)
            try:
                wait_until(page, "!!document.querySelector('#actions button[data-action=stand]')")
                assert not page.is_visible("#result-banner"), "the banner stays only until the next deal"
                bottoms = page.eval_on_selector_all(
                    "#actions button[data-action=hit], #actions button[data-action=stand], .participant.me .card, "
                    "#countdown",
                    "es => es.map(e => e.getBoundingClientRect().bottom)",
                )
                assert len(bottoms) >= 4 and max(bottoms) <= viewport["height"], f"below the fold: {bottoms}"
                _shot(page, f"{language}-{kind}-your-turn")
                assert not failed, failed
            finally:
                context.close()


def test_a_tie_says_its_rule_and_a_player_who_left_is_not_the_house(browser, asgi_server, anon, as_staff):
    table = create_table(as_staff, "classic", bank="house", max_seats=3, turn_timeout_s=120, betting_timeout_s=120)
    player = register(anon, "tt")
    deposit(as_staff, player, 1_000)
    view = _play_one_hand_at_the_house(player, table["id"])
    for language in LANGUAGES:
        context, page, _ = _table_page(browser, asgi_server, player, table["id"], language, PHONE)
        try:
            # the page's live updates stop once it has set its client seed: only the view given here is drawn
            wait_until(page, "!!document.body.dataset.seedFor && loading === null")
            page.evaluate("stopped = true")
            shown = page.evaluate("table")
            last = shown["last_hand"]
            banker = last["banker"] = {**last["banker"], "total_half_points": 12, "total": "6", "category": "points"}
            row = last["results"][0] = {**last["results"][0], "total_half_points": 12, "total": "6",
                                        "category": "points", "outcome": "lose", "net": -5}  # fmt: skip
            shown["hand"] = None
            page.evaluate("view => renderTable(view)", shown)
            assert page.inner_text("#result-lines").strip() == YOU[language]["tie"].format(n=5)
            assert page.inner_text("#result-rule").strip() == TIE_RULE[language]
            _shot(page, f"{language}-phone-tie")
            # the player left before the view was read: the view names nobody at his seat
            last["results"][0] = {**row, "username": None}
            page.evaluate("view => renderTable(view)", shown)
            text = page.inner_text("#last-hand .last-results")
            assert AT_SEAT[language].format(seat=row["seat"]) in text and HOUSE[language] not in text
            assert banker["seat"] is None and HOUSE[language] in page.inner_text("#last-hand .last-banker h4")
            # "Sit out" and "Sit in" are never offered together
            shown["you"]["legal_actions"] = [*shown["you"]["legal_actions"], "sit_out", "sit_in"]
            page.evaluate("view => renderTable(view)", shown)
            labels = page.eval_on_selector_all("#actions button", "bs => bs.map(b => b.textContent)")
            words = page.evaluate("[W.actions.sit_out, W.actions.sit_in]")
            assert not set(words) <= set(labels), labels
            assert page.inner_text("#actions button[data-action=sit_in]") == DEAL_ME_IN[language]
        finally:
            context.close()
    assert view["last_hand"]["number"] == 1


def test_the_header_is_hidden_before_signing_in_and_emptied_after_signing_out(browser, asgi_server, anon, as_staff):
    player = register(anon, "th")
    for language in ("it", "en"):
        context, page, failed = _open(browser, asgi_server, None, language, PHONE)
        try:
            page.goto(f"http://{asgi_server}/play/")
            page.wait_for_selector("#signin:not([hidden])")
            assert not page.is_visible("#account")
            assert not page.is_visible("#sign-out")
            page.fill("#username", player.username)
            page.fill("#password", "correct horse 42")
            page.click("#password-form button")
            page.wait_for_selector("#lobby:not([hidden])")
            assert page.is_visible("#account") and page.inner_text("#me") == player.username
            page.click("#sign-out")
            page.wait_for_selector("#signin:not([hidden])")
            assert not page.is_visible("#account")
            assert page.inner_text("#me") == "" and page.inner_text("#balance") == ""
            _shot(page, f"{language}-phone-signed-out")
            assert [f for f in failed if "/api/v1/me " not in f + " "] == []
        finally:
            context.close()


def test_a_banker_sees_why_chips_are_held_and_a_late_sitter_when_he_plays(browser, asgi_server, anon, as_staff):
    table = create_table(as_staff, "italian", bank="player", max_seats=3, turn_timeout_s=120, betting_timeout_s=120)
    players = [register(anon, "tr") for _ in range(2)]
    for p in players:
        deposit(as_staff, p, 1_000)
        ok(p.client.post(f"/api/v1/tables/{table['id']}/seats", {}, format="json"), 201)
    view = players[0].view(table["id"])
    assert view["hand"] is not None, "the hand opens with a banker and a punter"
    banker_name = next(p["username"] for p in view["hand"]["participants"] if p["role"] == "banker")
    banker = next(p for p in players if p.username == banker_name)
    for language in LANGUAGES:
        context, page, _ = _table_page(browser, asgi_server, banker, table["id"], language, PHONE)
        try:
            assert page.inner_text("#reserve-note").strip() == HELD_BANKER[language]
            held = page.locator("#reserve-note").bounding_box()
            assert held is not None and held["y"] + held["height"] <= PHONE["height"], f"below the fold: {held}"
            assert page.evaluate("getComputedStyle(document.querySelector('.card.deal') || document.body)"
                                 ".animationName") in ("deal", "none")  # fmt: skip
            if language == "en":
                _shot(page, "en-phone-banker-reserve")
        finally:
            context.close()
    # reduced motion: no deal animation
    context, page, _ = _open(browser, asgi_server, banker, "en", PHONE, reduced_motion="reduce")
    try:
        page.goto(f"http://{asgi_server}/play/tables/{table['id']}/")
        page.wait_for_selector("#hand .card")
        names = page.eval_on_selector_all("#hand .card", "cs => cs.map(c => getComputedStyle(c).animationName)")
        assert set(names) == {"none"}, names
    finally:
        context.close()
    # a second player sits while bets are open: a Bet button, or the page says when he plays
    house = create_table(as_staff, "classic", bank="house", max_seats=3, turn_timeout_s=120, betting_timeout_s=120)
    first, late = players[0], register(anon, "tl")
    deposit(as_staff, late, 1_000)
    ok(first.client.post(f"/api/v1/tables/{house['id']}/seats", {}, format="json"), 201)
    ok(late.client.post(f"/api/v1/tables/{house['id']}/seats", {}, format="json"), 201)
    for language in LANGUAGES:
        context, page, _ = _table_page(browser, asgi_server, late, house["id"], language, PHONE)
        try:
            legal = page.evaluate("table.you.legal_actions")
            turn = page.inner_text("#turn").strip()
            if "bet" in legal:
                assert page.is_visible("#actions button[data-action=bet]")
            elif page.evaluate("table.hand && table.hand.turn && table.hand.turn.kind === 'bets'"):
                assert turn == NEXT_HAND[language]
        finally:
            context.close()


LIMITS_TITLE = {"it": "I tuoi limiti e pause", "es": "Tus límites y pausas", "hu": "Korlátaid és szüneteid",
                "en": "Your limits and breaks"}  # fmt: skip
LOBBY = {"it": "Sala", "es": "Sala", "hu": "Előtér", "en": "Lobby"}
CONFIRM = {"it": "Iniziarla adesso? Non si potrà accorciare.", "es": "¿Empezarla ahora? No se podrá acortar.",
           "hu": "Most elkezded? Nem lehet lerövidíteni.", "en": "Start it now? It cannot be shortened."}  # fmt: skip
USERNAME_RULE = {
    "it": "Un nome utente ha da 3 a 30 caratteri: lettere, cifre, '.', '_' e '-', e comincia con una lettera o "
    "una cifra.",
    "es": "Un nombre de usuario tiene de 3 a 30 caracteres: letras, cifras, '.', '_' y '-', y empieza por una letra o "
    "una cifra.",
    "hu": "A felhasználónév 3\u201330 karakter: betűk, számjegyek, '.', '_' és '-', és betűvel vagy számjeggyel "
    "kezdődik.",
    "en": "A username has 3-30 characters: letters, digits, '.', '_' and '-', starting with a letter or a digit.",
}


def test_the_limits_page_and_registration_errors_speak_the_players_language(browser, asgi_server, anon):
    player = register(anon, "tz")
    ok(player.client.put("/api/v1/me/limits", {"kind": "loss", "period": "day", "amount": 100}, format="json"))
    ok(player.client.put("/api/v1/me/limits", {"kind": "loss", "period": "day", "amount": 500}, format="json"), 202)
    for language in LANGUAGES:
        context, page, failed = _open(browser, asgi_server, player, language, PHONE)
        try:
            page.goto(f"http://{asgi_server}/play/limits/")
            page.wait_for_selector("#requests li")
            assert page.get_attribute("html", "lang") == language
            assert page.inner_text("main h2").strip() == LIMITS_TITLE[language]
            assert page.inner_text("#nav-lobby").strip() == LOBBY[language]  # the header, its lobby link
            assert page.is_visible("#language-form select")
            request = page.inner_text("#requests li")
            assert not re.search(r"\d{4}-\d{2}-\d{2}T", request), f"a raw ISO date: {request}"
            assert "500" in request
            page.click("#exclusion-form button")  # the page's own box, in the page's language
            assert page.inner_text("#exclusion-confirm-text").strip() == CONFIRM[language]
            page.click("#exclusion-no")
            assert not _axe(page)
            assert not page.evaluate(OVERFLOWING), page.evaluate(OVERFLOWING)
            _shot(page, f"{language}-phone-limits")
            assert not failed, failed
        finally:
            context.close()
        # registering with a username the rules refuse: the reason in that language, under the registration form
        context, page, _ = _open(browser, asgi_server, None, language, PHONE)
        try:
            page.goto(f"http://{asgi_server}/play/")
            page.click("#register-details summary")
            page.fill("#reg-username", "a!")
            page.fill("#reg-password", "correct horse 42")
            page.click("#register-form button")
            page.wait_for_selector("#register-error p")
            assert page.inner_text("#register-error").strip() == USERNAME_RULE[language]
            assert page.inner_text("#signin-error").strip() == ""
        finally:
            context.close()


SENT = {"it": "Inviato: un operatore esaminerà questa mano e ti risponderà.",
        "es": "Enviado: un operador revisará esta mano y te responderá.",
        "hu": "Elküldve: egy munkatárs megvizsgálja a leosztást, és válaszol.",
        "en": "Sent: an operator will look at this hand and answer you."}  # fmt: skip


def test_my_hands_shows_each_hand_replays_it_and_opens_a_dispute(browser, asgi_server, anon, as_staff):
    from tables.models import Dispute

    table = create_table(as_staff, "classic", bank="house", max_seats=3, turn_timeout_s=120, betting_timeout_s=120)
    player = register(anon, "tm")
    deposit(as_staff, player, 1_000)
    view = _play_one_hand_at_the_house(player, table["id"])
    ended = view["last_hand"]["id"]
    ok(player.act(table["id"], "bet", amount=view["min_bet"]))  # hand 2, in play
    in_play = next(h["id"] for h in ok(player.client.get("/api/v1/me/hands"))["results"] if h["status"] == "in_play")
    history = ok(player.client.get(f"/api/v1/hands/{ended}"))
    row = next(r for r in view["last_hand"]["results"] if r["username"] == player.username)
    for language in LANGUAGES:
        context, page, failed = _open(browser, asgi_server, player, language, PHONE if language == "hu" else DESKTOP)
        try:
            page.goto(f"http://{asgi_server}/play/history/")
            page.wait_for_selector(f"#hand-{ended} .hand-summary .card")
            done = f"#hand-{ended}"
            assert page.get_attribute(f"{done} h3 a", "href").endswith(f"/play/history/#hand-{ended}")
            date = page.inner_text(f"{done} time")
            assert date and not re.search(r"\d{4}-\d{2}-\d{2}T", date)
            assert page.inner_text(f"{done} .hand-summary .result-text").strip() == _expected(
                language, row, view["last_hand"]["banker"]
            )
            assert page.is_visible(f"{done} button[data-verify]") and page.is_visible(f"{done} button[data-export]")
            # a hand in play: neither verify nor export
            assert page.query_selector(f"#hand-{in_play} button[data-verify]") is None
            assert page.query_selector(f"#hand-{in_play} button[data-export]") is None
            # the replay, one card at a time
            page.click(f"{done} .replay-details summary")
            assert page.get_attribute(f"{done} .replay", "data-steps") == str(len(history["deals"]))
            page.click(f"{done} .replay button[data-replay=next]")
            assert page.get_attribute(f"{done} .replay", "data-step") == "2"
            assert page.eval_on_selector_all(f"{done} .replay .card", "cs => cs.length") == 2
            _shot(page, f"{language}-history")
            if language == "en":
                assert not _axe(page)
                page.click(f"{done} .dispute-details summary")
                page.fill(f"#dispute-reason-{ended}", "The house's card looked wrong to me.")
                page.click(f"{done} .dispute-form button")
                page.wait_for_selector(f"{done} .dispute-result[data-ok=true]")
                assert page.inner_text(f"{done} .dispute-result") == SENT[language]
            assert not page.evaluate(OVERFLOWING), page.evaluate(OVERFLOWING)
            assert not failed, failed
        finally:
            context.close()
    assert Dispute.objects.filter(hand_id=ended, reason__startswith="The house's card").count() == 1
