"""The player client's table page says when a locked sign-in may try again (issue 27; API.md v1.2 sign-in
lockout): "too many attempts, try again in N minutes", not "wrong password". Debian's chromium, a real uvicorn."""

from __future__ import annotations

import pytest

from tests.support.browser import wait_until
from tests.support.game_helpers import create_table, register

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_locked_sign_in_says_when_to_try_again(browser, asgi_server, anon, as_staff, settings):
    player = register(anon, "lk")
    table = create_table(as_staff, "classic")
    page = browser.new_context().new_page()
    page.goto(f"http://{asgi_server}/play/tables/{table['id']}/")
    for n in range(settings.LOGIN_FAILURE_LIMIT):  # the server's default limit (the test server does not change it)
        page.fill("#username", player.username)
        page.fill("#password", f"wrong guess {n}")
        page.click("#password-form button")
        wait_until(page, "document.getElementById('signin-error').textContent !== ''", timeout=10_000)
        if n < settings.LOGIN_FAILURE_LIMIT - 1:
            assert "too many attempts" not in page.text_content("#signin-error").lower()
            page.evaluate("document.getElementById('signin-error').textContent = ''")
    assert page.text_content("#signin-error") == "Too many attempts, try again in 1 minutes."
    page.evaluate("document.getElementById('signin-error').textContent = ''")
    page.fill("#password", "correct horse 42")  # the right password too, while locked
    page.click("#password-form button")
    wait_until(page, "document.getElementById('signin-error').textContent !== ''", timeout=10_000)
    assert page.text_content("#signin-error") == "Too many attempts, try again in 1 minutes."
    assert page.is_visible("#signin")
