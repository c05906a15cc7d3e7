"""``GET /hands/{id}/export`` (API.md v1.2 "Hand export") and ``tools/verify_hand.py FILE``: an ended hand exported
with everything needed to check it offline, checked by the outside verifier with nothing but the standard library
and a key the user holds; and the owner's rewrite that keeps the hash strings (a bet 5 -> 50 and its net), caught
from the export file alone."""

from __future__ import annotations

import base64
import hashlib
import json
import random
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.core.management import call_command

from gamemath.chainhash import served_hash
from gamemath.release import RULES_VERSION, rules_sha256
from tables import loader
from tables.models import Hand
from tests.conftest import owner_cursor
from tests.support.api_helpers import assert_error
from tests.support.fairness_tools import current_key as _current_key
from tests.support.fairness_tools import run_verifier as _verify
from tests.support.game_helpers import HttpTable, create_table, deposit, ok, register
from tests.support.play import make_players, make_table, play_hands, state_of, step
from tests.support.staff import staff_user
from tests.tables.store.test_seed_schedule import inject_plain_pledge

pytestmark = pytest.mark.django_db


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


@pytest.mark.django_db(transaction=True)  # a hand's checkpoint is written once its command commits (signer role)
@pytest.mark.parametrize(("preset", "bank"), [("classic", "player"), ("spanish", "house"), ("hungarian", "player")])
def test_an_exported_hand_verifies_offline_with_the_users_key(as_staff, anon, tmp_path, preset, bank):
    table_id, players = _played(as_staff, anon, preset, bank)
    hand = Hand.objects.filter(table_id=table_id, status="settled").order_by("number")[1]
    body, path = _export(players[0].client, hand, tmp_path)
    assert body["format"] == "sevenhalf-hand-export/1" and body["hand"]["id"] == hand.pk
    assert set(body) == {"format", "hand", "events", "checkpoints", "public_keys", "game"}
    seqs = [e["seq"] for e in body["events"]]
    assert seqs == list(range(seqs[0], seqs[-1] + 1))  # no gap
    committed = next(
        e["seq"] for e in body["events"] if e["type"] == "SeedCommitted" and e["data"]["number"] == hand.number
    )  # (v1.2: a table's creation commits hands 1 and 2, so hand 1's commitment may come first)
    before = [c["version"] for c in body["checkpoints"] if c["version"] < hand.opened_version]
    # from the one before the commitment was published, or the checkpoint before the hand (its facts are signed)
    assert seqs[0] == min([committed - 1, *before])
    assert seqs[-1] in [c["version"] for c in body["checkpoints"]] and seqs[-1] >= hand.closed_version
    for event in body["events"]:  # every event with its hash, each recomputable from the event as served
        assert {"hash", "prev_hash", "hash_form", "private_sha256"} <= set(event) and event["hash_form"] == 3
        assert served_hash(table_id, event) == event["hash"], event
    for checkpoint in body["checkpoints"]:  # v1.3: each signs the events' forms and the table's facts
        assert checkpoint["hash_forms"] == "3@1" and checkpoint["facts"]["rules"] == body["hand"]["rules"]
    game = {"id": "seven-and-a-half", "version": RULES_VERSION, "rules_sha256": rules_sha256()}
    assert body["game"] == body["hand"]["game"] == game  # recorded when the hand opened
    code, out = _verify(path, "--public-key", _current_key())
    assert code == 0, out
    assert "every check passed" in out and "hashes recomputed from the content" in out
    assert f"game         seven-and-a-half {RULES_VERSION}, rules sha256 {game['rules_sha256']}: the rules core" in out
    assert "each in the form the checkpoints sign" in out and "could not be checked" not in out, out
    for check in ("commitment", "published", "history", "deck", "deals", "feed", "results", "ledger", "chain"):
        assert f"ok   {check} " in out, (check, out)
    assert "ok   checkpoint " in out and "seed timing" in out


@pytest.mark.django_db(transaction=True)  # a hand's checkpoint is written once its command commits (signer role)
def test_a_fully_forged_file_with_its_own_key_fails_and_only_a_key_from_outside_the_file_is_believed(
    as_staff, anon, tmp_path
):
    """Issue #42 (trust on first use): a forger re-signs every checkpoint of an export with a key of his own and
    puts that key in the file. Offline, the verifier never takes a key from the file: without ``--public-key`` or
    a key pinned earlier from ``GET /fairness/public-key`` it fails, and pins nothing; with the casino's real key,
    the forged signatures fail."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    from gamemath.chainhash import checkpoint_message

    table_id, players = _played(as_staff, anon, "classic", "house", hands=2)
    hand = Hand.objects.filter(table_id=table_id, status="settled").first()
    body, path = _export(players[0].client, hand, tmp_path)
    forger = Ed25519PrivateKey.generate()
    raw = forger.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    key_id = hashlib.sha256(raw).hexdigest()[:16]
    forged = dict(body, public_keys=[{"key_id": key_id, "public_key": base64.b64encode(raw).decode()}])
    forged["checkpoints"] = [
        {
            **c,
            "key_id": key_id,
            "signature": base64.b64encode(
                forger.sign(checkpoint_message(table_id, c["version"], c["hash"], c["hash_forms"], c["facts_sha256"]))
            ).decode(),
        }
        for c in body["checkpoints"]
    ]
    path.write_text(json.dumps(forged))
    pins = tmp_path / "pins.json"
    code, out = _verify(path, "--pin-file", str(pins), "--casino", "test")
    assert code == 1 and "FAIL key" in out and "never believed" in out and "every check passed" not in out, out
    assert not pins.exists()  # nothing pinned from a file
    code, out = _verify(path, "--public-key", _current_key())
    assert code == 1 and "FAIL checkpoint" in out and "which you do not trust" in out, out
    # a key pinned earlier from GET /fairness/public-key (what a live check pins) is believed offline
    offered = ok(anon.get("/api/v1/fairness/public-key"))["keys"]
    pins.write_text(json.dumps({"test": {k["key_id"]: k["public_key"] for k in offered}}))
    code, out = _verify(path, "--pin-file", str(pins), "--casino", "test")
    assert code == 1 and "FAIL checkpoint" in out, out
    path.write_text(json.dumps(body))
    code, out = _verify(path, "--pin-file", str(pins), "--casino", "test")
    assert code == 0 and "pinned for 'test'" in out, out


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
    loader.forget_all()
    rewritten, path = _export(players[0].client, hand, tmp_path)
    assert [e["hash"] for e in rewritten["events"]] == [e["hash"] for e in body["events"]]  # the strings kept
    code, out = _verify(path, "--public-key", _current_key())
    assert code == 1, out
    assert f"FAIL chain        seq {bet['seq']} (BetPlaced): its content does not give its hash" in out, out


def test_each_hand_keeps_the_rules_it_was_dealt_under_and_operators_list_every_release(as_staff, anon, client):
    """API.md "Hand history": ``game.version`` and ``game.rules_sha256`` are recorded when the hand opens; the
    application's role cannot change them afterwards (a later release does not rewrite old hands); the admin lists
    every release that dealt a hand and filters by it."""
    from django.db import IntegrityError, transaction

    from tables.admin.filters import rules_releases

    table_id, players = _played(as_staff, anon, "classic", "house", hands=1)
    hand = Hand.objects.filter(table_id=table_id).order_by("number").first()
    assert (hand.rules_version, hand.rules_sha256) == (RULES_VERSION, rules_sha256())
    history = ok(players[0].client.get(f"/api/v1/hands/{hand.pk}"))
    assert history["game"] == {"id": "seven-and-a-half", "version": RULES_VERSION, "rules_sha256": rules_sha256()}
    for change in ({"rules_version": "9.9.9"}, {"rules_sha256": "0" * 64}, {"rules_version": ""}):
        with pytest.raises(IntegrityError, match="cannot change"), transaction.atomic():
            Hand.objects.filter(pk=hand.pk).update(**change)
    assert (RULES_VERSION, rules_sha256()) in rules_releases()
    operator = staff_user("rules-operator", "superuser", password="x" * 12)
    client.force_login(operator)
    page = client.get(f"/admin/tables/hand/?rules={RULES_VERSION}:{rules_sha256()}")
    assert page.status_code == 200 and f"{RULES_VERSION} ({rules_sha256()[:12]}" in page.content.decode()
    assert hand.pk in [h.pk for h in page.context["cl"].result_list]
    assert not client.get("/admin/tables/hand/?rules=unknown").context["cl"].result_list


@pytest.mark.django_db(transaction=True)  # the owner's connection must see the committed rows
def test_a_hand_opened_before_hands_recorded_their_rules_says_so(as_staff, anon, tmp_path):
    table_id, players = _played(as_staff, anon, "classic", "house", hands=2, seed=11)
    hand = Hand.objects.filter(table_id=table_id, status="settled").order_by("number").first()
    with owner_cursor(triggers_off=["tables_hand"]) as cursor:  # what a hand of before the migration holds
        cursor.execute("UPDATE tables_hand SET rules_version = '', rules_sha256 = '' WHERE id = %s", [hand.pk])
    body, path = _export(players[0].client, hand, tmp_path)
    assert body["game"] == body["hand"]["game"] == {"id": "seven-and-a-half", "version": None, "rules_sha256": None}
    code, out = _verify(path, "--public-key", _current_key())
    assert code == 0 and "--   game         seven-and-a-half: the casino does not say which rules" in out, out


@pytest.mark.django_db(transaction=True)  # the attack commits, as the attacker's would
def test_the_verifier_fails_the_export_of_a_hand_behind_an_injected_plain_pledge(as_staff, tmp_path):
    """Issue #25's second attack, read from an export file: the application's role appends a ``SeedCommitted``
    whose pledge is ``plain:<seed>`` with a correct chain hash. The table refuses to deal from it (the hand is
    abandoned before any card), and the outside verifier, on the export file alone, fails the hand: its seed was
    committed twice and never revealed."""
    players = make_players(3, prefix="plx")
    table = make_table("classic")
    rng = random.Random(31)
    play_hands(table, players, 1, rng)
    target = state_of(table.pk).hands_opened + 1
    inject_plain_pledge(table.pk, target, bytes(range(32)).hex())
    for _ in range(600):
        if state_of(table.pk).settled_through >= target:
            break
        assert step(table, players, rng)
    hand = Hand.objects.get(table=table, number=target)
    assert hand.status == "abandoned"
    body, path = _export(as_staff, hand, tmp_path)
    assert sum(1 for e in body["events"] if e["type"] == "SeedCommitted" and e["data"]["number"] == target) == 2
    code, out = _verify(path, "--public-key", _current_key())
    assert code == 1, out
    assert f"FAIL commitment   hand #{target}'s seed was committed 2 times" in out, out
    assert "FAIL commitment   the hand was abandoned (seed_unavailable) and its server seed never revealed" in out


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
