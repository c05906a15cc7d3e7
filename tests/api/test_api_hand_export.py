"""``GET /hands/{id}/export`` (API.md v1.2 "Hand export") and ``tools/verify_hand.py FILE``: an ended hand exported
with everything needed to check it offline, checked by the outside verifier with nothing but the standard library
and a key the user holds; and the owner's rewrite that keeps the hash strings (a bet 5 -> 50 and its net), caught
from the export file alone."""

from __future__ import annotations

import base64
import json
import random
import subprocess
import sys
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
import yaml
from api_helpers import assert_error
from django.core.management import call_command
from game_helpers import HttpTable, create_table, deposit, ok, register

from tables import engine, fairness
from tables.models import Hand
from tables.rules.chainhash import served_hash
from tests.conftest import ROOT, owner_cursor

pytestmark = pytest.mark.django_db


def _verify(path: Path, *args: str) -> tuple[int, str]:
    done = subprocess.run(
        # -I -S: no site-packages, no environment; the tool must need nothing beyond the standard library
        [sys.executable, "-I", "-S", str(ROOT / "tools" / "verify_hand.py"), str(path), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin"},
    )
    return done.returncode, done.stdout + done.stderr


def _current_key() -> str:
    key_id, raw = fairness.public_keys()[0]
    return f"{key_id}:{base64.b64encode(raw).decode()}"


def _played(as_staff: Any, anon: Any, preset: str, bank: str, hands: int = 3, seed: int = 5) -> tuple[int, list]:
    table = create_table(as_staff, preset, bank=bank)
    players = []
    for n in range(2):
        player = register(anon, f"ex{preset[:2]}{n}")
        deposit(as_staff, player, 2000)
        players.append(player)
    game = HttpTable(table["id"], players, random.Random(seed))
    game.sit_all()
    game.play_hands(hands)
    return table["id"], players


def _export(client: Any, hand: Hand, tmp_path: Path) -> tuple[dict[str, Any], Path]:
    body = ok(client.get(f"/api/v1/hands/{hand.pk}/export"))
    path = tmp_path / f"hand-{hand.pk}.json"
    path.write_text(json.dumps(body))
    return body, path


@pytest.mark.parametrize(("preset", "bank"), [("classic", "player"), ("spanish", "house"), ("hungarian", "player")])
def test_an_exported_hand_verifies_offline_with_the_users_key(as_staff, anon, tmp_path, preset, bank):
    table_id, players = _played(as_staff, anon, preset, bank)
    hand = Hand.objects.filter(table_id=table_id, status="settled").order_by("number")[1]
    body, path = _export(players[0].client, hand, tmp_path)
    assert body["format"] == "sevenhalf-hand-export/1" and body["hand"]["id"] == hand.pk
    assert set(body) == {"format", "hand", "events", "checkpoints", "public_keys", "game"}
    seqs = [e["seq"] for e in body["events"]]
    assert seqs == list(range(seqs[0], seqs[-1] + 1))  # no gap
    committed = next(e["seq"] for e in body["events"] if e["type"] == "SeedCommitted")
    assert seqs[0] == committed - 1  # from the one before the commitment was published
    assert body["checkpoints"][-1]["version"] == seqs[-1] >= hand.closed_version
    for event in body["events"]:  # every event with its hash, each recomputable from the event as served
        assert {"hash", "prev_hash", "hash_form", "private_sha256"} <= set(event)
        assert served_hash(table_id, event) == event["hash"], event
    code, out = _verify(path, "--public-key", _current_key())
    assert code == 0, out
    assert "every check passed" in out and "hashes recomputed from the content" in out
    for check in ("commitment", "published", "deck", "deals", "feed", "results", "ledger", "chain", "checkpoint"):
        assert f"ok   {check} " in out, (check, out)
    assert "seed timing" in out


def test_a_key_the_user_does_not_hold_is_never_believed_and_first_use_pins_one(as_staff, anon, tmp_path):
    table_id, players = _played(as_staff, anon, "classic", "house", hands=2)
    hand = Hand.objects.filter(table_id=table_id, status="settled").first()
    body, path = _export(players[0].client, hand, tmp_path)
    stranger = base64.b64encode(bytes(range(32))).decode()
    code, out = _verify(path, "--public-key", stranger)
    assert code == 1 and "FAIL checkpoint" in out and "which you do not trust" in out, out
    pins = tmp_path / "pins.json"
    code, out = _verify(path, "--pin-file", str(pins), "--casino", "test")
    assert code == 0 and "pinned on first use" in out and "fingerprint" in out, out
    code, out = _verify(path, "--pin-file", str(pins), "--casino", "test")
    assert code == 0 and "pinned for 'test'" in out, out
    # an export whose casino offers another key (a forged export) is not believed against the pinned one
    forged = dict(body, public_keys=[{"key_id": body["public_keys"][0]["key_id"], "public_key": stranger}])
    path.write_text(json.dumps(forged))
    code, out = _verify(path, "--pin-file", str(pins), "--casino", "test")
    assert code == 0 and "not pinned" in out, out  # the pinned (genuine) key still verifies the genuine signatures


@pytest.mark.django_db(transaction=True)  # the owner's connection must see the committed events
def test_the_owners_rewrite_that_keeps_the_hash_strings_is_caught_from_the_export(as_staff, anon, tmp_path):
    table_id, players = _played(as_staff, anon, "classic", "house", hands=3, seed=9)
    hand = Hand.objects.filter(table_id=table_id, status="settled").order_by("number")[1]
    body, path = _export(players[0].client, hand, tmp_path)
    code, out = _verify(path, "--public-key", _current_key())
    assert code == 0, out
    bet = next(
        e for e in body["events"] if e["type"] == "BetPlaced" and e["data"].get("number", hand.number) == hand.number
    )
    settled = next(e for e in body["events"] if e["type"] == "HandSettled" and e["data"]["number"] == hand.number)
    seat, amount = bet["data"]["seat"], bet["data"]["amount"]

    def bigger_bet(data: dict[str, Any]) -> dict[str, Any]:
        return {**data, "amount": amount * 10, "stake": data["stake"] * 10}

    def bigger_net(data: dict[str, Any]) -> dict[str, Any]:
        results = [
            {**r, "bet": r["bet"] * 10, "net": r["net"] * 10} if r["seat"] == seat else r for r in data["results"]
        ]
        return {**data, "results": results, "banker_net": -sum(r["net"] for r in results)}

    # the owner role, past the append-only triggers: the content changes, every hash string stays as it was
    with owner_cursor(triggers_off=["tables_event"]) as cursor:
        for event, change in ((bet, bigger_bet), (settled, bigger_net)):
            cursor.execute(
                "SELECT data FROM tables_event WHERE stream_id = %s AND version = %s", [table_id, event["seq"]]
            )
            (data,) = cursor.fetchone()
            data = json.loads(data) if isinstance(data, str) else data
            cursor.execute(
                "UPDATE tables_event SET data = %s::jsonb WHERE stream_id = %s AND version = %s",
                [json.dumps(change(data)), table_id, event["seq"]],
            )
        cursor.execute("DELETE FROM tables_snapshot WHERE table_id = %s", [table_id])
    engine.forget_all()
    rewritten, path = _export(players[0].client, hand, tmp_path)
    assert [e["hash"] for e in rewritten["events"]] == [e["hash"] for e in body["events"]]  # the strings kept
    code, out = _verify(path, "--public-key", _current_key())
    assert code == 1, out
    assert f"FAIL chain        seq {bet['seq']} (BetPlaced): its content does not give its hash" in out, out


def test_only_an_ended_hand_of_ones_own_is_exported(as_staff, anon, make_user, client_for):
    table_id, players = _played(as_staff, anon, "classic", "player", hands=1)
    hand = Hand.objects.filter(table_id=table_id, status="settled").first()
    in_play = Hand.objects.filter(table_id=table_id, status="in_play").first()
    if in_play is not None:
        assert_error(as_staff.get(f"/api/v1/hands/{in_play.pk}/export"), 409, "wrong_phase")
    stranger = client_for(make_user("stranger"))
    assert_error(stranger.get(f"/api/v1/hands/{hand.pk}/export"), 403, "forbidden")
    assert_error(anon.get(f"/api/v1/hands/{hand.pk}/export"), 401, "not_authenticated")
    assert_error(players[0].client.get("/api/v1/hands/987654321/export"), 404, "not_found")
    assert ok(as_staff.get(f"/api/v1/hands/{hand.pk}/export"))["hand"]["id"] == hand.pk


def test_the_export_is_in_the_openapi_schema():
    out = StringIO()
    call_command("spectacular", "--validate", "--fail-on-warn", stdout=out)
    paths = yaml.safe_load(out.getvalue())["paths"]
    (path,) = [p for p in paths if p.startswith("/api/v1/hands/") and p.endswith("/export")]
    operation = paths[path]["get"]
    assert operation["operationId"] == "hands_export"
    assert "HandExport" in json.dumps(operation["responses"]["200"])
