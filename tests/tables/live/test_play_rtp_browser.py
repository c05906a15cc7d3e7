"""The player client's table information shows what the table returns (API.md v1.3), the same figures in every
language (it, es, hu, en), in Debian's chromium on a real uvicorn: a house table's exact best-play and flat
figures, a player bank's simulated flat figure with its margin (the lab's stored row for that rule set), and the
figures equal the API's ``rtp`` for that table."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.utils import timezone

from lab.models import DONE, HouseEdge
from lab.services import house_edge_key, table_spec
from rules import make_table_config
from tables import worth as worth_module
from tests.support.browser import wait_until
from tests.support.game_helpers import create_table, ok, register

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct horse 42"
LANGUAGES = ("it", "es", "hu", "en")
TITLE = {"it": "Ritorno al giocatore", "es": "Retorno al jugador", "hu": "Visszatérítés a játékosnak",
         "en": "Return to player"}  # fmt: skip


def _percent(text: str) -> str:
    """The API's decimal string as the page writes it: "0.9731" -> "97.31%" (the digits, never a float)."""
    whole, part = text.split(".") if "." in text else (text, "")
    digits = (whole + (part + "0000")[:4]).lstrip("0").rjust(3, "0")
    return f"{digits[:-2]}.{digits[-2:]}%"


def _simulated_figure(preset: str) -> None:
    """The lab's row of this player-bank rule set, as its Celery task would have stored it."""
    config = make_table_config(preset=preset, min_bet=5, max_bet=50, max_seats=4, bank="player")
    HouseEdge.objects.create(
        key=house_edge_key(config),
        preset=preset,
        bank="player",
        rules=config.rules.to_dict(),
        spec=table_spec(config).to_json(),
        status=DONE,
        edge=0.1939,
        half_width=0.0107,
        rounds=15_000,
        requested_at=timezone.now(),
        computed_at=timezone.now(),
    )
    # what this process remembers of the rule set while it was computing (an earlier test's table) is read again
    # only after tables.worth._PENDING_TTL_S: as if that much time had passed
    worth_module._simulated_memo.clear()


def _shown(page: Any) -> dict[str, str | None]:
    wait_until(page, "document.getElementById('rtp-flat').textContent !== ''")  # (the page's CSP forbids eval)
    if not page.evaluate("document.getElementById('game-info').open"):
        page.click("#game-info summary")  # the game information panel, a tap away
    return {
        "title": page.inner_text("#worth-title"),
        "best_play": page.get_attribute("#rtp-best-play", "data-value"),
        "best_play_text": page.inner_text("#rtp-best-play"),
        "flat": page.get_attribute("#rtp-flat", "data-value"),
        "flat_text": page.inner_text("#rtp-flat"),
    }


def test_every_language_shows_the_same_figures_as_the_api(browser, asgi_server, anon, as_staff):
    house = create_table(as_staff, "spanish", bank="house", max_seats=3, min_bet=5, max_bet=10)
    _simulated_figure("classic")
    player_bank = create_table(as_staff, "classic", bank="player", max_seats=4, min_bet=5, max_bet=50)
    player = register(anon, "rtp")
    api = {t["id"]: ok(player.client.get(f"/api/v1/tables/{t['id']}"))["rtp"] for t in (house, player_bank)}
    assert api[house["id"]]["method"] == "exact" and api[player_bank["id"]]["flat"] == "0.8061"
    seen: dict[int, dict[str, list[Any]]] = {house["id"]: {}, player_bank["id"]: {}}
    for language in LANGUAGES:
        context = browser.new_context(locale=language)
        page = context.new_page()
        try:
            page.goto(f"http://{asgi_server}/play/tables/{house['id']}/")
            page.fill("#username", player.username)
            page.fill("#password", PASSWORD)
            page.click("#password-form button")
            page.wait_for_selector("#game:not([hidden])")  # signed in (its cookie set) before the page is left
            for table_id in (house["id"], player_bank["id"]):
                page.goto(f"http://{asgi_server}/play/tables/{table_id}/")
                page.wait_for_selector("#game:not([hidden])")
                shown = _shown(page)
                for _ in range(30):  # a server process that saw the figure computing reads it again within 10 s
                    if shown["flat"] == api[table_id]["flat"]:
                        break
                    time.sleep(1)
                    page.reload()
                    page.wait_for_selector("#game:not([hidden])")
                    shown = _shown(page)
                assert shown["title"] == TITLE[language]
                rtp = api[table_id]
                assert shown["flat"] == rtp["flat"] and _percent(rtp["flat"]) in str(shown["flat_text"])
                if rtp["best_play"] is None:
                    assert shown["best_play"] == "" and "%" not in str(shown["best_play_text"])
                    assert f"± {_percent(rtp['margin'])}" in str(shown["flat_text"])
                else:
                    assert shown["best_play"] == rtp["best_play"]
                    assert shown["best_play_text"] == _percent(rtp["best_play"])
                numbers = "".join(c for c in str(shown["flat_text"]) if c in "0123456789.%±")
                best_text = shown["best_play_text"] if rtp["best_play"] is not None else None  # words otherwise
                seen[table_id][language] = [shown["best_play"], shown["flat"], best_text, numbers]
        finally:
            context.close()
    for table_id, by_language in seen.items():
        figures = {tuple(v) for v in by_language.values()}
        assert len(figures) == 1, f"table {table_id}: the languages show different figures: {by_language}"
