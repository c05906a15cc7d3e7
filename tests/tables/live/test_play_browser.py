"""The player client ``/play/`` in Debian's chromium (Playwright), on a real uvicorn, in each language.

In every language two players, each in a browser of his own (one registers on the page, the other signs in with
his password; the second at a phone's width and playing from the keyboard), sit at a house table and at a
player-bank table and play a whole hand there by pressing the buttons the page offers. Each sees the other's
face-up card appear without reloading, both see how the hand ended (``last_hand``) and the page's figures (each
result's outcome, net and total, the balance) equal the API's. axe-core (vendored) finds no WCAG A/AA violation;
a table that does not exist says so once instead of reconnecting. Screenshots go to ``artifacts/play/``
(git-ignored).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from rest_framework.test import APIClient

from tests.conftest import ROOT
from tests.support.browser import wait_until
from tests.support.game_helpers import Player, client_with, create_table, deposit, ok, register

pytestmark = pytest.mark.django_db(transaction=True)

AXE = ROOT / "tests" / "vendor" / "axe-core" / "axe.min.js"
ARTIFACTS = ROOT / "artifacts" / "play"
PASSWORD = "correct horse 42"
PHONE = {"width": 390, "height": 844}
GAME_NAME = {"it": "Sette e mezzo", "es": "Siete y media", "hu": "Hetedfél", "en": "Seven and a Half"}
NO_SUCH_TABLE = {"it": "Questo tavolo non esiste.", "es": "Esa mesa no existe.", "hu": "Nincs ilyen asztal.",
                 "en": "There is no such table."}  # fmt: skip
VERSION = "Number(document.getElementById('game').dataset.version)"


def _shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)  # one name per process: parallel workers number tables alike
    page.screenshot(path=str(ARTIFACTS / f"{Path(name).stem}-{os.getpid()}.png"), full_page=True)


def _axe_violations(page: Any) -> list[str]:
    page.evaluate(AXE.read_text())  # (not a script tag: the page's CSP refuses an inline one; evaluate is the tester's)
    found = page.evaluate(
        "async () => (await axe.run(document, {runOnly: ['wcag2a', 'wcag2aa']})).violations"
        ".map(v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).join(', '))"
    )
    return list(found)


def _buttons(page: Any) -> list[str]:
    return list(page.eval_on_selector_all("#actions button:not([disabled])", "bs => bs.map(b => b.dataset.action)"))


def _press(page: Any, action: str, keyboard: bool) -> bool:
    before = page.evaluate(VERSION)
    try:
        if keyboard and action in ("stand", "bet", "hit"):
            page.locator("body").focus()
            page.keyboard.press({"stand": "s", "bet": "b", "hit": "c"}[action])
        else:
            page.click(f"#actions button[data-action={action}]", timeout=5_000)
    except PlaywrightTimeout:  # the page re-rendered meanwhile: that action is gone
        return False
    # (wait_until says "never true" with an AssertionError: a press the page lost to a re-render is pressed again
    # by the caller's loop, as one whose button went away)
    with contextlib.suppress(PlaywrightTimeout, AssertionError):
        wait_until(page, f"{VERSION} > {before}", timeout=15_000)
    return True


def _play_a_hand(pages: list[Any], names: list[str], keyboard: list[bool]) -> None:
    """Both pages press their buttons until both show how hand 1 ended; the first punter to play takes one card,
    and the other page must show it without a reload."""
    hit_done = False
    deadline = time.monotonic() + 180  # generous: with four test workers on two cores a page may be slow
    while not all(page.evaluate("document.getElementById('last-hand').dataset.number === '1'") for page in pages):
        assert time.monotonic() < deadline, "the hand never ended on both pages"
        moved = False
        for index, page in enumerate(pages):
            buttons = _buttons(page)
            is_banker = page.evaluate("!!document.querySelector('.participant.me[data-role=banker]')")
            if "bet" in buttons:
                choice = "bet"
            elif "hit" in buttons and not hit_done and not is_banker:
                choice = "hit"
            elif "stand" in buttons:
                choice = "stand"
            else:
                continue
            if not _press(page, choice, keyboard[index]):
                continue
            moved = True
            if choice == "hit":
                hit_done = True
                code = _last_card_dealt_to(page)
                other = pages[1 - index]
                # the other page shows the card live (a hit is face up), in the hand or, if it ended the hand,
                # in how the hand ended
                name = names[index]
                selector = (
                    f".participant[data-username='{name}'] .card[data-code='{code}'], "
                    f"#last-hand li[data-username='{name}'] .card[data-code='{code}']"
                )
                try:
                    other.wait_for_selector(selector, timeout=60_000)
                except PlaywrightTimeout:
                    seen = other.evaluate(
                        "[lastSeq, document.getElementById('status').dataset.ws, "
                        "document.getElementById('game').dataset.version, "
                        "[...document.querySelectorAll('.participant')].map(p => p.dataset.username + ':' + "
                        "[...p.querySelectorAll('.card')].map(c => c.dataset.code).join(' ')), "
                        "document.getElementById('last-hand').dataset.number]"
                    )
                    raise AssertionError(f"the other page never showed {name}'s {code}: page state {seen}") from None
            break
        if not moved:
            time.sleep(0.2)  # nobody may act now (dealing, the house playing): the pages update by themselves


def _client_of(page: Any) -> Any:
    """An API client of the page's player: signed in with his password (the page's own token is in an HttpOnly
    cookie that no script, the test's included, can read)."""
    username = page.inner_text("#me").strip()
    answer = APIClient().post("/api/v1/auth/token", {"username": username, "password": PASSWORD}, format="json")
    return client_with(ok(answer)["token"])


def _last_card_dealt_to(page: Any) -> str:
    """The card the API says was dealt last, face up, to this page's player (his newest hand with one: a card
    that ended the hand may have opened the next at once)."""
    client = _client_of(page)
    me = ok(client.get("/api/v1/me"))["username"]
    # the page's press may still be on its way: an action sent on a view a seed change had just made stale is
    # refused (stale_version) and sent again after a read, and the page's version moved meanwhile
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for row in ok(client.get("/api/v1/me/hands"))["results"]:
            history = ok(client.get(f"/api/v1/hands/{row['id']}"))
            seat = next(p["seat"] for p in history["participants"] if p["username"] == me)
            up = [d["card"] for d in history["deals"] if d["to_seat"] == seat and d["face_up"] and d["card"]]
            if up:
                return str(up[-1])
        time.sleep(0.2)
    raise AssertionError(f"no card was dealt face up to {me}")


def _check_figures(page: Any, client: Any, table_id: int) -> None:
    """The page's last-hand figures and balance equal the API's, for this player."""
    view = ok(client.get(f"/api/v1/tables/{table_id}"))
    for _ in range(50):
        if page.evaluate(f"{VERSION}") >= view["version"]:
            break
        time.sleep(0.1)
    view = ok(client.get(f"/api/v1/tables/{table_id}"))
    last = view["last_hand"]
    shown = page.eval_on_selector_all(
        "#last-hand .last-results li",
        "rows => rows.map(r => [r.dataset.username, r.dataset.outcome, Number(r.dataset.net),"
        " Number(r.dataset.totalHp)])",
    )
    assert shown == [[r["username"], r["outcome"], r["net"], r["total_half_points"]] for r in last["results"]]
    banker_total = last["banker"]["total_half_points"]
    shown_total = page.get_attribute("#last-hand .last-banker", "data-total-hp")
    assert shown_total == ("" if banker_total is None else str(banker_total))
    # every event seen, none skipped (generous waits: the page is slow to catch up when CI's two workers are busy)
    wait_until(page, f"lastSeq >= {view['version']}", timeout=45_000)
    me = ok(client.get("/api/v1/me"))
    # the page set a fresh random client seed when it saw the next commitment (the player chose none)
    assert page.inner_text("#client-seed") == me["client_seed"] and len(me["client_seed"]) == 32
    wait_until(page, f"document.getElementById('balance').textContent === '{me['balance']}'", timeout=45_000)


def _table_round(browser: Any, server: str, language: str, bank: str, anon: Any, as_staff: Any) -> None:
    table = create_table(as_staff, "classic", bank=bank, max_seats=2, turn_timeout_s=60, betting_timeout_s=60)
    url = f"http://{server}/play/tables/{table['id']}/"
    newcomer = f"web{table['id']}x{int(time.time() * 1000) % 10**6}"
    regular = register(anon, "web")
    deposit(as_staff, regular, 1_000)
    contexts = [
        browser.new_context(locale=language),
        browser.new_context(locale=language, viewport=PHONE, is_mobile=True, has_touch=True),
    ]
    pages = [context.new_page() for context in contexts]
    try:
        pages[0].goto(url)
        assert GAME_NAME[language] in pages[0].title()
        pages[0].click("#register-details summary")
        pages[0].fill("#reg-username", newcomer)
        pages[0].fill("#reg-password", PASSWORD)
        pages[0].click("#register-form button")
        pages[0].wait_for_selector("#game:not([hidden])")
        deposit(as_staff, Player(newcomer, anon, 0), 1_000)
        pages[1].goto(url)
        pages[1].fill("#username", regular.username)
        pages[1].fill("#password", PASSWORD)
        pages[1].click("#password-form button")
        for page in pages:
            page.wait_for_selector("#status[data-ws=open]", timeout=30_000)
            page.evaluate("window.__sameDocument = true")
            page.click("#actions button[data-action=sit]")
            page.wait_for_selector("#actions button[data-action=leave]", timeout=30_000)
        names = [newcomer, regular.username]
        pages[1].evaluate("socket.close()")  # a dropped connection: the page reconnects and resumes by itself
        _play_a_hand(pages, names, keyboard=[False, True])
        pages[1].wait_for_selector("#status[data-ws=open]")
        clients = [_client_of(page) for page in pages]
        for page, client in zip(pages, clients, strict=True):
            _check_figures(page, client, table["id"])
            assert page.evaluate("window.__sameDocument") is True, "a page was reloaded"
            assert page.inner_text("#announce").strip(), "nothing was announced to screen readers"
            _shot(page, f"{language}-{bank}-table{table['id']}-{'phone' if page is pages[1] else 'desktop'}.png")
        width = pages[1].evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert width[0] <= width[1] + 1, f"the page is wider than the phone: {width}"
        if bank == "house":
            violations = _axe_violations(pages[0])
            assert not violations, violations
            # my hands: the hand just played, verified from the page
            ended = ok(clients[0].get(f"/api/v1/tables/{table['id']}"))["last_hand"]["id"]
            pages[0].goto(f"http://{server}/play/history/")
            pages[0].click(f"#hands button[data-verify='{ended}']")
            pages[0].wait_for_selector(f"#hands li[data-hand='{ended}'] .verify-result[data-ok=true]")
            with pages[0].expect_download() as download:
                pages[0].click(f"#hands button[data-export='{ended}']")
            exported = json.loads(Path(download.value.path()).read_text())
            assert exported["format"] == "sevenhalf-hand-export/1" and exported["hand"]["id"] == ended
            _shot(pages[0], f"{language}-history-table{table['id']}.png")
    finally:
        for context in contexts:
            context.close()


@pytest.mark.parametrize("language", ["it", "es", "hu", "en"])
def test_two_players_play_a_hand_at_a_house_and_a_player_bank_table_in_each_language(
    browser,
    asgi_server,
    anon,
    as_staff,
    language,
):
    for bank in ("house", "player"):
        _table_round(browser, asgi_server, language, bank, anon, as_staff)


def test_a_table_that_does_not_exist_says_so_once_and_the_lobby_lists_the_tables(browser, asgi_server, anon, as_staff):
    table = create_table(as_staff, "classic", bank="house")
    player = register(anon, "lobby")
    context = browser.new_context(locale="en")
    page = context.new_page()
    try:
        page.goto(f"http://{asgi_server}/")
        assert page.url.endswith("/play/")
        page.fill("#username", player.username)
        page.fill("#password", PASSWORD)
        page.click("#password-form button")
        page.wait_for_selector(f"#tables tr[data-table='{table['id']}'] a")
        _shot(page, f"lobby-table{table['id']}.png")
        assert not _axe_violations(page)
        page.goto(f"http://{asgi_server}/play/tables/999999/")
        page.wait_for_selector("#no-table:not([hidden])")
        assert page.inner_text("#no-table") == NO_SUCH_TABLE["en"]
        time.sleep(2)
        assert "reconnecting" not in page.inner_text("#status")
        page.goto(f"http://{asgi_server}/play/history/")
        page.wait_for_selector("#hands li")
        page.click("#sign-out")
        page.wait_for_selector("#signin:not([hidden])")
        assert Path(ARTIFACTS).exists()
    finally:
        context.close()
