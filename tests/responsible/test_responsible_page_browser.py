"""The reference responsible-gaming page ``/play/limits/`` in Debian's chromium (Playwright), on a real uvicorn:
a player signs in, sets a limit (at once), asks for a raise (pending, with its cooling-off), and takes a break,
which signs him out everywhere and refuses his next sign-in."""

from __future__ import annotations

import pytest

from tests.support.game_helpers import register

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_player_sets_limits_and_takes_a_break_on_the_reference_page(browser, asgi_server, anon):
    player = register(anon, "rgpage")
    context = browser.new_context()
    page = context.new_page()
    page.on("dialog", lambda dialog: dialog.accept())
    try:
        page.goto(f"http://{asgi_server}/play/limits/")
        page.fill("#username", player.username)
        page.fill("#password", "correct horse 42")
        page.click("#signin-form button")
        page.wait_for_selector("#signin", state="hidden", timeout=10_000)  # ("not signed in" has "signed in" too)
        assert page.inner_text("#status") == "signed in"

        page.select_option("#limit-kind", "loss:day")
        page.fill("#limit-amount", "100")
        page.click("#limit-form button")
        page.wait_for_selector("#limits td:has-text('loss per day')", timeout=10_000)
        assert page.inner_text("#limit-error") == "Done."

        page.fill("#limit-amount", "500")
        page.click("#limit-form button")
        page.wait_for_selector("#requests li:has-text('to 500')", timeout=10_000)
        assert "cooling-off" in page.inner_text("#limit-error")
        assert "100" in page.inner_text("#limits")

        page.select_option("#exclusion-choice", "break:7")
        page.click("#exclusion-form button")
        page.click("#exclusion-no")  # the page's own box asks first; "No" starts nothing
        assert page.is_hidden("#exclusion-confirm") and page.inner_text("#exclusion") == ""
        page.click("#exclusion-form button")
        page.click("#exclusion-yes")
        page.wait_for_selector("#exclusion:has-text('Started')", timeout=10_000)
    finally:
        context.close()
    assert player.client.get("/api/v1/me").status_code == 401
    sign_in = {"username": player.username, "password": "correct horse 42"}
    refused = anon.post("/api/v1/auth/token", sign_in, format="json")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "excluded"
