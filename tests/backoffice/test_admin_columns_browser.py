"""Every admin list fits a 1400-pixel-wide window (issue 32: wide lists cut off their last columns): in a real
headless Chromium, with played hands, disputes and postings, the results table of each list ends inside the
window, needs no horizontal scrollbar of its own, and the page scrolls no wider than the window."""

from __future__ import annotations

from typing import Any

import pytest

from tests.backoffice.test_admin_browser import _shot, _sign_in
from tests.support.admin_fixtures import play_table

pytestmark = pytest.mark.django_db(transaction=True)

LISTS = (
    "/admin/tables/table/",
    "/admin/tables/hand/",
    "/admin/tables/event/",
    "/admin/tables/dispute/",
    "/admin/casino/player/",
    "/admin/ledger/account/",
    "/admin/ledger/transaction/",
    "/admin/ledger/posting/",
    "/admin/lab/houseedge/",
    "/admin/admin/logentry/",
)

WIDTHS = """() => {
  const table = document.querySelector('#result_list');
  const results = document.querySelector('#changelist .results');
  return {
    inner: results ? results.scrollWidth - results.clientWidth : 0,
    table: table ? table.getBoundingClientRect().right : null,
    scroll: document.documentElement.scrollWidth,
    window: window.innerWidth,
    columns: table ? [...table.querySelectorAll('thead th')].map(th => th.innerText.trim()) : [],
  };
}"""


def test_every_admin_list_fits_1400_pixels(page: Any, live_server: Any, superuser: Any) -> None:
    assert page.viewport_size["width"] == 1400
    played = play_table("classic", hands=3, seed=21, prefix="wide")
    play_table("spanish", hands=2, seed=5, prefix="wider", bank="house")
    from tables import disputes
    from tables.models import Hand

    hand = Hand.objects.filter(table=played.table, status="settled").first()
    disputes.hand_dispute_open(hand_id=hand.pk, user=played.players[0], reason="a reason long enough to be wide " * 3)
    _sign_in(page, live_server, superuser.username, "/admin/")
    too_wide = {}
    for url in LISTS:
        response = page.goto(f"{live_server.url}{url}")
        assert response is not None and response.status == 200, url
        measured = page.evaluate(WIDTHS)
        if measured["table"] is None:
            continue
        wide = measured["table"] > measured["window"] + 1 or measured["scroll"] > measured["window"] + 1
        if wide or measured["inner"] > 1:  # cut off, or hidden behind the list's own horizontal scrollbar
            too_wide[url] = measured
            _shot(page, f"too_wide_{url.strip('/').replace('/', '_')}.png", full_page=True)
    assert not too_wide, too_wide
