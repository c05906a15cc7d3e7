"""The reference table page ``/play/tables/{id}/`` in Debian's chromium (Playwright), on a real uvicorn.

Two players, each in a browser of his own (one signs in with his token, the other with his password), sit down
and play hands by clicking the buttons the page offers. Each sees the other's face-up cards appear on his page
as they are dealt, without reloading it (the WebSocket brings them); at no moment does either page show a card
its viewer may not see (the other's face-down card, the banker's hidden card, an undealt card): after every
click both pages are checked against the event store's truth.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.support.browser import wait_until
from tests.support.game_helpers import create_table, deposit, ok, register
from tests.support.live_helpers import token_of
from tests.tables.api.test_api_game_leaks import Truth

pytestmark = pytest.mark.django_db(transaction=True)

NO_RELOAD = "window.__sameDocument"
VERSION = "Number(document.getElementById('game').dataset.version)"
CODES = "[...document.querySelectorAll('#hand .card')].map(c => c.dataset.code)"


def _check_page(page: Any, table_id: int, viewer_id: str, username: str) -> None:
    """The page shows no card its viewer may not see, compared at the very version it shows."""
    for _ in range(100):
        version, codes = page.evaluate(f"[{VERSION}, {CODES}]")
        truth = Truth(table_id)
        if truth.state.version == version:
            leaked = {c for c in codes if c} & truth.hidden_from(viewer_id)
            assert not leaked, f"{username}'s page shows {sorted(leaked)} at version {version}"
            return
        time.sleep(0.1)  # the page is catching up (or the table moved on): look again
    raise AssertionError(f"{username}'s page never caught up with the table")


def _last_face_up_card(truth: Truth, player_id: str) -> str | None:
    hand = truth.state.hand
    if hand is None:
        return None
    mine = [h for h in hand.punters if h.player_id == player_id]
    if hand.banker.player_id == player_id:
        mine.append(hand.banker)
    up = [c for h in mine for c, face_up in zip(h.cards, h.face_up, strict=True) if face_up]
    return up[-1] if up else None


def test_two_browser_players_see_each_others_face_up_cards_live_and_never_a_hidden_one(
    browser,
    asgi_server,
    anon,
    as_staff,
):
    players = [register(anon, "pg") for _ in range(2)]
    for player in players:
        deposit(as_staff, player, 5_000)
    table = create_table(as_staff, "classic", max_seats=2)
    url = f"http://{asgi_server}/play/tables/{table['id']}/"
    contexts = [browser.new_context() for _ in players]
    pages = [context.new_page() for context in contexts]
    try:
        pages[0].goto(url)
        pages[0].click("#token-details summary")
        pages[0].fill("#token", token_of(players[0].client))
        pages[0].click("#token-form button")
        pages[1].goto(url)
        pages[1].fill("#username", players[1].username)
        pages[1].fill("#password", "correct horse 42")
        pages[1].click("#password-form button")
        for page in pages:
            page.wait_for_selector("#status[data-ws=open]", timeout=15_000)
            page.evaluate(f"{NO_RELOAD} = true")
            page.click("#actions button[data-action=sit]")
            page.wait_for_selector("#actions button[data-action=leave]", timeout=10_000)

        ids = [str(p.user_id) for p in players]
        seen_live = {0: 0, 1: 0}  # page index -> face-up cards of the other player that appeared on it
        hit_this_hand: set[int] = set()
        hand_number = 0
        deadline = time.monotonic() + 120
        while not (seen_live[0] and seen_live[1]):
            assert time.monotonic() < deadline, f"no live cards both ways: {seen_live}"
            truth = Truth(table["id"])
            if truth.state.hand is not None and truth.state.hand.number != hand_number:
                hand_number, hit_this_hand = truth.state.hand.number, set()
            moved = False
            for index, page in enumerate(pages):
                buttons = page.eval_on_selector_all("#actions button", "bs => bs.map(b => b.dataset.action)")
                choice = next((a for a in ("bet", "hit", "stand") if a in buttons), None)
                if choice == "hit" and (index in hit_this_hand or seen_live[1 - index]) and "stand" in buttons:
                    choice = "stand"  # one card face up per hand, until the other page has shown one of ours
                if choice is None:
                    continue
                before = truth.state.version
                try:
                    page.click(f"#actions button[data-action={choice}]", timeout=2_000)
                except PlaywrightTimeout:  # the page re-rendered meanwhile: that action is gone
                    continue
                moved = True
                # (a refused click moves nothing; wait_until says so with an AssertionError)
                with contextlib.suppress(PlaywrightTimeout, AssertionError):
                    wait_until(page, f"{VERSION} > {before}", timeout=5_000)
                if choice == "hit":
                    hit_this_hand.add(index)
                    card = _last_face_up_card(Truth(table["id"]), ids[index])
                    other = pages[1 - index]
                    if card is not None:  # it appears on the other player's page, which nobody reloads
                        other.wait_for_selector(
                            f"[data-username='{players[index].username}'] .card[data-code='{card}']", timeout=10_000
                        )
                        seen_live[1 - index] += 1
                for viewer, viewer_page in enumerate(pages):
                    _check_page(viewer_page, table["id"], ids[viewer], players[viewer].username)
                break
            if not moved:
                time.sleep(0.2)  # nobody may act yet (dealing, a timer): the pages update by themselves
        for page in pages:
            assert page.evaluate(NO_RELOAD) is True, "a page was reloaded"
    finally:
        for context in contexts:
            context.close()


def _spectator_page(
    browser: Any, server: str, anon: Any, as_staff: Any, route: Any = None
) -> tuple[Any, Any, dict[str, Any]]:
    """A signed-in spectator's page on a new table, its socket open, and a funded player who has not sat yet;
    ``route``: handles the page's reads of the table view from the first one (the read at start)."""
    watcher, player = register(anon, "pw"), register(anon, "pp")
    deposit(as_staff, player, 5_000)
    table = create_table(as_staff, "classic", max_seats=2)
    page = browser.new_context().new_page()
    if route is not None:
        page.route(lambda url: url.endswith(f"/api/v1/tables/{table['id']}"), route)
    page.goto(f"http://{server}/play/tables/{table['id']}/")
    page.click("#token-details summary")
    page.fill("#token", token_of(watcher.client))
    page.click("#token-form button")
    page.wait_for_selector("#status[data-ws=open]", timeout=45_000)
    page.evaluate(f"{NO_RELOAD} = true")
    return page, player, table


def test_a_table_read_that_fails_is_tried_again_and_the_page_catches_up_without_a_reload(
    browser,
    asgi_server,
    anon,
    as_staff,
):
    """The page reads the table view at start (and after a gap in the events; every change after that comes on
    the socket). If that read fails (the network drops it, a busy or restarting server does not answer), the page
    tries again by itself, then follows the table (once, one failed read froze the page for good)."""
    refused: list[str] = []

    def fail_the_first_reads(route: Any) -> None:
        if len(refused) < 3:
            refused.append(route.request.url)
            route.abort("connectionreset")
        else:
            route.continue_()

    page, player, table = _spectator_page(browser, asgi_server, anon, as_staff, fail_the_first_reads)
    try:
        assert len(refused) == 3, refused  # the page's reads did fail, and it went on after them
        ok(player.client.post(f"/api/v1/tables/{table['id']}/seats", {}, format="json"), 201)  # events: sat, opened
        version = player.view(table["id"])["version"]
        wait_until(page, f"{VERSION} >= {version}", timeout=20_000)
        assert page.evaluate(NO_RELOAD) is True, "the page was reloaded"
    finally:
        page.context.close()


def test_a_table_read_that_never_answers_is_given_up_and_tried_again(browser, asgi_server, anon, as_staff):
    """A read whose answer never comes (a connection the server or the network left hanging) does not hold the
    page: after READ_TIMEOUT_MS (10 s) it is given up and tried again, and the page follows the table without a
    reload (seen in CI: one read hung and the page never showed the table again)."""
    held: list[Any] = []

    def hold_the_first_read(route: Any) -> None:
        if not held:
            held.append(route)  # never answered
        else:
            route.continue_()

    page, player, table = _spectator_page(browser, asgi_server, anon, as_staff, hold_the_first_read)
    try:
        ok(player.client.post(f"/api/v1/tables/{table['id']}/seats", {}, format="json"), 201)
        version = player.view(table["id"])["version"]
        wait_until(page, f"{VERSION} >= {version}", timeout=30_000)
        assert len(held) == 1 and page.evaluate(NO_RELOAD) is True
    finally:
        page.context.close()
