"""``/play/``: the player web client (one template, one stylesheet, plain JavaScript, no build step).

``/play/`` is the lobby, ``/play/tables/{id}/`` a table, ``/play/history/`` the player's hands; ``/`` redirects to
``/play/``. Every page is the same client, opened on a different view. It signs in with a username and password
through ``/play/session`` (the token goes to an HttpOnly cookie no script reads: accounts/views/page_auth.py), or
with a pasted API token held in memory only, shows the table as the REST API shows it to that viewer, offers the
viewer's legal actions as buttons, and re-reads the table view whenever the WebSocket brings events. It never
decides what to show: every card, total and result comes from the server's view. Its words come from the
message catalogues in the request's language (:mod:`tables.live.words`).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.urls import reverse
from django.utils import translation

from kit.csp import with_strict_csp
from rules.config import TableConfig
from tables import loader
from tables.errors import TableMissing
from tables.live.rules_words import rules_in_words
from tables.live.words import client_words


def _config(request: HttpRequest, view: str, table_id: int | None) -> dict[str, Any]:
    return {
        "csrf": get_token(request),  # sent as X-CSRFToken with the cookie's token (kit.authentication)
        "session_url": reverse("play-session"),
        "register_url": reverse("play-register"),
        "session_end_url": reverse("play-session-end"),
        "view": view,
        "table": table_id,
        "api": "/api/v1",
        "ws_base": settings.LIVE_WS_URL.rstrip("/"),  # empty: the page's host on LIVE_PORT
        "live_port": settings.LIVE_PORT,
        "lobby_url": reverse("play-lobby"),
        "history_url": reverse("play-history"),
        "table_url": reverse("play-table", args=[0]).replace("/0/", "/{id}/"),
        "language": translation.get_language() or settings.LANGUAGE_CODE,
        "words": client_words(),
    }


def _table_config(table_id: int | None) -> TableConfig | None:
    """The table's card (rules, limits), or None for no table or one that does not exist (the page says so)."""
    if table_id is None:
        return None
    try:
        return loader.load_table(table_id).state.config
    except TableMissing:
        return None


def _page(request: HttpRequest, view: str, table_id: int | None = None) -> HttpResponse:
    table = _table_config(table_id)
    config = _config(request, view, table_id)
    if table is not None:
        # what a stake holds per chip staked (RULES.md §7): the page explains the chips a hand holds with it
        config["reserve"] = {
            "punter": table.rules.punter_loss_multiplier,
            "banker": table.rules.banker_loss_multiplier,
        }
    context = {
        "view": view,
        "table_id": table_id,
        "config": config,
        "languages": settings.LANGUAGES,
        "rules_words": rules_in_words(table) if table is not None else [],
    }
    return with_strict_csp(request, render(request, "play/client.html", context))


def lobby_page(request: HttpRequest) -> HttpResponse:
    """``/play/``: sign in or register, then the lobby (the tables, refreshed while the page is open)."""
    return _page(request, "lobby")


def table_page(request: HttpRequest, table_id: int) -> HttpResponse:
    """``/play/tables/{id}/``: one table, live (a table that does not exist says so, once)."""
    return _page(request, "table", table_id)


def history_page(request: HttpRequest) -> HttpResponse:
    """``/play/history/``: the hands the player took part in, each with verify and the export download."""
    return _page(request, "history")


def root_redirect(request: HttpRequest) -> HttpResponse:
    """``/``: the player client."""
    return HttpResponseRedirect(reverse("play-lobby"))
