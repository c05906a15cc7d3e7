"""The player pages against a script injected into them (issue #43), in Debian's chromium on a real uvicorn.

- a strict Content-Security-Policy: an injected inline script, event handler or style attribute does not run,
  and the pages themselves need none of them (no violation while signing in and playing);
- the player's token is out of the page's reach: after a sign-in with a password it is in an HttpOnly cookie,
  never in ``document.cookie``, ``sessionStorage`` or ``localStorage``; the live socket is signed in by it;
- that cookie rides along with any request, so a request that changes something without the page's CSRF token is
  refused (403), and another site cannot sign a visitor in to its own account (login CSRF).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from tests.support.browser import wait_until
from tests.support.game_helpers import create_table, deposit, register

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct horse 42"
#: every CSP violation the page reports, collected from the first moment (an init script is not the page's)
WATCH_VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(e.violatedDirective));
"""


def _signed_in_page(browser: Any, server: str, path: str, username: str) -> tuple[Any, Any]:
    context = browser.new_context()
    page = context.new_page()
    page.add_init_script(WATCH_VIOLATIONS)
    response = page.goto(f"http://{server}{path}")
    assert response is not None and response.status == 200
    page.fill("#username", username)
    page.fill("#password", PASSWORD)
    page.click("#password-form button")
    page.wait_for_selector("#account:not([hidden])", timeout=15_000)
    return context, page


def test_the_token_is_in_an_httponly_cookie_no_script_reads(browser, asgi_server, anon, as_staff):
    player = register(anon, "csp")
    deposit(as_staff, player, 100)
    table = create_table(as_staff, "classic")
    context, page = _signed_in_page(browser, asgi_server, f"/play/tables/{table['id']}/", player.username)
    page.wait_for_selector("#status[data-ws=open]", timeout=30_000)  # the socket signed in by the cookie alone
    cookie = next(c for c in context.cookies() if c["name"] == settings.PLAY_TOKEN_COOKIE)
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    token = cookie["value"]
    readable = page.evaluate(
        "JSON.stringify([document.cookie, Object.entries(sessionStorage), Object.entries(localStorage)])"
    )
    assert token not in readable
    # the token works, for the API as for the page: it is the player's
    me = APIClient()
    me.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert me.get("/api/v1/me").json()["username"] == player.username
    # a reload keeps the player signed in (the cookie), on another page too
    page.goto(f"http://{asgi_server}/play/")
    page.wait_for_selector("#account:not([hidden])", timeout=15_000)
    assert page.inner_text("#me") == player.username
    # signing out revokes it
    page.click("#sign-out")
    page.wait_for_selector("#signin:not([hidden])", timeout=15_000)
    assert me.get("/api/v1/me").status_code == 401
    assert page.evaluate("window.__violations") == []
    context.close()


def test_an_injected_script_handler_or_style_does_not_run(browser, asgi_server, anon):
    player = register(anon, "inj")
    for path in ("/play/", "/play/limits/"):
        context = browser.new_context()
        page = context.new_page()
        page.add_init_script(WATCH_VIOLATIONS)
        response = page.goto(f"http://{asgi_server}{path}")
        assert response is not None
        policy = response.headers["content-security-policy"]
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy and "unsafe-eval" not in policy
        assert "style-src 'self'" in policy and "frame-ancestors 'none'" in policy
        page.fill("#username", player.username)
        page.fill("#password", PASSWORD)
        page.click("#password-form button" if path == "/play/" else "#signin-form button")
        wait_until(page, "document.getElementById('signin').hidden === true", timeout=15_000)
        assert page.evaluate("window.__violations") == [], f"{path} needs what its policy forbids"
        # what an attacker's markup would do, had he found a way to inject it
        page.evaluate(
            """() => {
                const div = document.createElement("div");
                div.innerHTML = '<img src="data:," onerror="window.__pwned = 1">'
                    + '<a id="evil" href="#" onclick="window.__pwned = 2">x</a>'
                    + '<p id="styled" style="color: rgb(1, 2, 3)">s</p>';
                document.body.append(div);
                const script = document.createElement("script");
                script.textContent = "window.__pwned = 3";
                document.body.append(script);
            }"""
        )
        page.click("#evil")
        page.wait_for_timeout(300)
        assert page.evaluate("window.__pwned") is None
        assert page.evaluate("getComputedStyle(document.getElementById('styled')).color") != "rgb(1, 2, 3)"
        assert len(page.evaluate("window.__violations")) >= 3
        context.close()


def test_the_cookie_without_the_pages_csrf_token_changes_nothing(browser, asgi_server, anon, as_staff):
    player = register(anon, "csrf")
    deposit(as_staff, player, 100)
    table = create_table(as_staff, "classic")
    context, _page = _signed_in_page(browser, asgi_server, "/play/", player.username)
    # a request with the cookie (as a form on another site would send it) but not the page's CSRF token
    forged = context.request.post(
        f"http://{asgi_server}/api/v1/tables/{table['id']}/seats",
        data=json.dumps({}),
        headers={"Content-Type": "application/json"},
    )
    assert forged.status == 403 and forged.json()["error"]["code"] == "forbidden"
    assert player.client.get(f"/api/v1/tables/{table['id']}").json()["you"]["seat"] is None  # not seated
    # reads need no CSRF token: the page's own GETs
    assert context.request.get(f"http://{asgi_server}/api/v1/me").json()["username"] == player.username
    context.close()
    # another site's page signing the visitor in to the attacker's account: no CSRF token, refused
    refused = APIClient(enforce_csrf_checks=True).post(
        "/play/session", {"username": player.username, "password": PASSWORD}, format="json"
    )
    assert refused.status_code == 403 and settings.PLAY_TOKEN_COOKIE not in refused.cookies
