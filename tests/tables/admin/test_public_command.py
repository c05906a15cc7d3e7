"""A recorded command is shown in one form everywhere: ``tables.public_metadata.public_command``, without its context.

The context of a recorded command holds the command's entropy, every seated player's wallet balance and the next
hand's sealed seed (a security rule, docs/security.md). This walks every place that shows a recorded command --
the API's hand history, its verification and the events feed, the admin's event pages and hand page (timeline and
replay steps), and the exports of ``manage.py replay_hand`` / ``verify_hand`` -- checks that each one does show
commands, and that none shows any part of a context.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from kit.tokens import issue_token
from tables.models import Event
from tables.public_metadata import public_command, public_metadata
from tables.store import load_stream

pytestmark = pytest.mark.django_db

CONTEXT_KEYS = ('"ctx"', '"entropy"', '"wallets"', '"next_seed"', "&quot;ctx&quot;", "&quot;entropy&quot;")


def _context_secrets(table_id: int) -> set[str]:
    """Every string of every recorded command's context that identifies it: entropies and sealed seeds."""
    secrets: set[str] = set()
    for stored in load_stream(table_id):
        if stored.metadata.get("command") is None:
            continue
        ctx = stored.metadata["context"]  # recorded once, beside the command
        secrets.add(ctx["entropy"])
        if ctx.get("next_seed"):
            secrets.add(ctx["next_seed"]["sealed"])
    return {s for s in secrets if s and set(s) != {"0"}}


def _leaks(text: str, secrets: set[str]) -> list[str]:
    return [key for key in CONTEXT_KEYS if key in text] + [s[:12] + "..." for s in secrets if s in text]


def test_an_old_recorded_command_is_shown_without_the_context_it_holds() -> None:
    """Events recorded before the context went beside the command hold it inside, as ``ctx``."""
    old = {"actor": "7", "command": {"type": "Stand", "player_id": "7", "ctx": {"entropy": "ab" * 32}}}
    assert public_command(old) == {"type": "Stand", "player_id": "7"}
    assert public_metadata(old) == {"actor": "7", "command": {"type": "Stand", "player_id": "7"}}


def test_public_command_is_the_recorded_command_without_its_context(played):
    commands = 0
    for stored in load_stream(played.table.pk):
        recorded = stored.metadata.get("command")
        shown = public_command(stored.metadata)
        if recorded is None:
            assert shown is None
            continue
        commands += 1
        assert "ctx" not in recorded and "entropy" in stored.metadata["context"] and shown == recorded
        assert public_metadata(stored.metadata)["command"] == shown
        assert public_metadata(stored.metadata).keys() == stored.metadata.keys() - {"context"}
    assert commands > 10


def test_no_place_that_shows_a_recorded_command_shows_its_context(played, as_operator):
    table = played.table
    hands = played.settled
    secrets = _context_secrets(table.pk)
    assert secrets and hands
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {issue_token(played.players[0])}")
    places: dict[str, str] = {}

    def get(client: Any, url: str) -> str:
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
        text = response.content.decode()
        places[url] = text
        return text

    # the API: each hand's history (its actions are the recorded commands), its verification, the events feed
    for hand in hands:
        history = json.loads(get(api, f"/api/v1/hands/{hand.pk}"))
        assert history["actions"] and all("args" in row for row in history["actions"])
        get(api, f"/api/v1/hands/{hand.pk}/verify")
    get(api, f"/api/v1/tables/{table.pk}/events")
    get(api, "/api/v1/me/hands")
    # the admin: every event (the first of each command shows its command), the event list, each hand's page,
    # its timeline of commands and every replay step
    for event in Event.objects.filter(table=table):
        page = get(as_operator, f"/admin/tables/event/{event.pk}/change/")
        if "command" in event.metadata:
            assert "&quot;command&quot;" in page or '"command"' in page
    get(as_operator, "/admin/tables/event/")
    for hand in hands:
        get(as_operator, f"/admin/tables/hand/{hand.pk}/change/")
        for step in range(1, hand.closed_version - hand.opened_version + 2):
            get(as_operator, f"/admin/tables/hand/{hand.pk}/change/?step={step}")
    # the exports of the operators' commands
    for hand in hands:
        for command, args in (("replay_hand", ["--json"]), ("verify_hand", [])):
            out = io.StringIO()
            call_command(command, hand.pk, *args, stdout=out)
            places[f"manage.py {command} {hand.pk}"] = out.getvalue()

    leaked = {place: found for place, text in places.items() if (found := _leaks(text, secrets))}
    assert not leaked
