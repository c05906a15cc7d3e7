"""The player client renders from the stream (issue #45), in Debian's chromium on a real uvicorn: after its first
read of the table it never reads ``GET /tables/{id}`` again while the table changes, by other players' moves or by
its own; every change arrives on the socket (the events, then the v1.3 ``table`` view) and the page shows the
table at the API's version, as the API shows it to this player. The browser's request log is the witness."""

from __future__ import annotations

import re

import pytest

from tests.support.browser import wait_until
from tests.support.game_helpers import create_table, deposit, ok, register

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct horse 42"
VERSION = "Number(document.getElementById('game').dataset.version)"


def test_the_page_reads_the_table_once_and_then_follows_the_socket(browser, asgi_server, anon, as_staff):
    table = create_table(as_staff, "classic", bank="house", max_seats=3, turn_timeout_s=60, betting_timeout_s=60)
    table_id = table["id"]
    me, other = register(anon, "stream"), register(anon, "other")
    for player in (me, other):
        deposit(as_staff, player, 1_000)
    context = browser.new_context()
    page = context.new_page()
    reads: list[str] = []  # every read of the table view (not its events, not the lobby)
    view_path = re.compile(rf"/api/v1/tables/{table_id}/?$")
    page.on("request", lambda r: reads.append(r.url) if r.method == "GET" and view_path.search(r.url) else None)
    try:
        page.goto(f"http://{asgi_server}/play/tables/{table_id}/")
        page.fill("#username", me.username)
        page.fill("#password", PASSWORD)
        page.click("#password-form button")
        page.wait_for_selector("#status[data-ws=open]", timeout=30_000)
        assert len(reads) == 1  # the read at start
        page.click("#actions button[data-action=sit]")  # its own change: the answer's view, then the socket's
        page.wait_for_selector("#actions button[data-action=leave]", timeout=30_000)
        seated = ok(other.client.post(f"/api/v1/tables/{table_id}/seats", {}, format="json"), 201)  # another's change
        wait_until(page, f"{VERSION} >= {seated['table']['version']}", timeout=30_000)
        for seed in ("a1" * 16, "b2" * 16):  # more of the other player's changes: his client seed, set at the table
            answer = ok(other.client.put("/api/v1/me/client-seed", {"client_seed": seed}, format="json"))
            version = max(t["version"] for t in answer["tables"] if t["table"] == table_id)
            wait_until(page, f"{VERSION} >= {version}", timeout=30_000)
        now = ok(me.client.get(f"/api/v1/tables/{table_id}"))["version"]  # (its own seed changes included)
        wait_until(page, f"{VERSION} >= {now}", timeout=30_000)  # a bet on a stale view would be refused and read
        before = page.evaluate(VERSION)
        page.click("#actions button[data-action=bet]", timeout=30_000)  # its own move again
        wait_until(page, f"{VERSION} > {before}", timeout=30_000)
        final = ok(me.client.get(f"/api/v1/tables/{table_id}"))
        wait_until(page, f"{VERSION} >= {final['version']} && lastSeq >= {final['version']}", timeout=30_000)
        final = ok(me.client.get(f"/api/v1/tables/{table_id}"))
        assert page.evaluate(VERSION) == final["version"] > table["version"] + 4
        assert page.evaluate("table") == final, "the page shows something else than the API's view for this player"
        assert len(reads) == 1, f"the page read the table again while it changed: {reads}"
    finally:
        context.close()
