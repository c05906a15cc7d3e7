"""The fairness endpoints of API.md v1.1: the public key that signs checkpoints, a table's checkpoints (paginated,
oldest first, ``after``), ``next_seed_commitment`` and the commitment published in the feed before the first card;
and the pure-Python Ed25519 of ``tools/verify_hand.py`` against RFC 8032 and the ``cryptography`` package."""

from __future__ import annotations

import base64
import hashlib
import os
import random
import sys
from datetime import datetime

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from django.db import transaction
from django.utils import timezone

from gamemath.chainhash import checkpoint_message
from tables import checkpoint_signing, key_rings
from tables.models import Checkpoint
from tests.conftest import ROOT
from tests.support.api_helpers import assert_error
from tests.support.game_helpers import HttpTable, create_table, deposit, ok, register

sys.path.insert(0, str(ROOT / "tools"))
import ed25519

pytestmark = pytest.mark.django_db


def test_anyone_reads_the_public_key_and_it_verifies_a_checkpoint(anon):
    body = ok(anon.get("/api/v1/fairness/public-key"))
    assert body["algorithm"] == "ed25519" and len(base64.b64decode(body["public_key"])) == 32
    assert body["keys"][0]["key_id"] == body["key_id"] and body["keys"][0]["public_key"] == body["public_key"]
    # v1.3: when the key was put in service (here: its first publication), never null, and the same ever after
    valid_from = body["keys"][0]["valid_from"]
    assert valid_from is not None and datetime.fromisoformat(valid_from) <= timezone.now()
    assert ok(anon.get("/api/v1/fairness/public-key"))["keys"][0]["valid_from"] == valid_from
    for entry in body["keys"]:  # API.md: key_id = first 16 hex of sha256 of the 32 raw bytes
        assert entry["key_id"] == hashlib.sha256(base64.b64decode(entry["public_key"])).hexdigest()[:16]
    key_id, signature = checkpoint_signing.sign_message(checkpoint_message(7, 12, "ab" * 32))
    assert key_id == body["key_id"]
    key = base64.b64decode(body["public_key"])
    assert ed25519.verify(key, b"7:12:" + b"ab" * 32, base64.b64decode(signature))
    assert not ed25519.verify(key, b"7:13:" + b"ab" * 32, base64.b64decode(signature))


def test_a_rotated_key_keeps_old_checkpoints_verifiable(anon, settings):
    old = key_rings.signing_keys()
    old_line = f"{old.current}:{base64.b64encode(old.keys[old.current]).decode()}"
    key_id, signature = checkpoint_signing.sign_message(checkpoint_message(1, 5, "cd" * 32))
    new = os.urandom(32)
    settings.CHECKPOINT_SIGNING_KEYS = f"rotated-1:{base64.b64encode(new).decode()},{old_line}"
    new_id = checkpoint_signing.key_id_of(checkpoint_signing.public_of(new))
    body = ok(anon.get("/api/v1/fairness/public-key"))
    assert body["key_id"] == new_id and [k["key_id"] for k in body["keys"]] == [new_id, key_id]
    assert checkpoint_signing.checkpoint_signature_ok(1, 5, "cd" * 32, key_id, signature)
    assert checkpoint_signing.sign_message(checkpoint_message(1, 6, "cd" * 32))[0] == new_id


def test_a_checkpoint_that_names_its_key_as_configured_still_verifies_on_the_server_and_in_the_tool(anon):
    """Checkpoints signed before key ids were derived name the key by its configured name (``dev-sign-...``):
    the server maps the name to the key, the outside verifier tries the keys the user trusts; a name no trusted
    key signed for fails in both."""
    ring = key_rings.signing_keys()
    key = checkpoint_signing.published_keys()[0]
    assert key.name == ring.current and key.key_id == checkpoint_signing.key_id_of(key.raw) != key.name
    _, signature = checkpoint_signing.sign_message(checkpoint_message(3, 9, "ef" * 32))
    assert checkpoint_signing.checkpoint_signature_ok(3, 9, "ef" * 32, key.name, signature)
    assert checkpoint_signing.checkpoint_signature_ok(3, 9, "ef" * 32, key.key_id, signature)
    assert not checkpoint_signing.checkpoint_signature_ok(3, 9, "ef" * 32, "someone-else", signature)
    from verifier.chain import check_checkpoints
    from verifier.keys import key_id_of
    from verifier.report import Report
    from verifier.signed import verify_checkpoints

    checkpoint = {"version": 9, "hash": "ef" * 32, "signature": signature, "key_id": key.name}
    stranger = Ed25519PrivateKey.generate().public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    for trusted, failed in (([key.raw], 0), ([stranger], 1), ([stranger, key.raw], 0)):
        report = Report()
        keys = {key_id_of(raw): raw for raw in trusted}
        check_checkpoints(report, verify_checkpoints(3, [checkpoint], keys), {9: "ef" * 32}, 9)
        assert report.failed == failed, trusted
    report = Report()  # a derived id that no trusted key has is never tried against other keys
    check_checkpoints(
        report, verify_checkpoints(3, [dict(checkpoint, key_id="0" * 16)], {"x": key.raw}), {9: "ef" * 32}, 9
    )
    assert report.failed == 1


@pytest.mark.django_db(transaction=True)  # a hand's checkpoint is written once its command commits (signer role)
def test_checkpoints_are_signed_when_hands_end_and_served_oldest_first(as_staff, as_player, anon):
    cashier = as_staff
    table = create_table(cashier, "classic", bank="house")
    view = ok(as_player.get(f"/api/v1/tables/{table['id']}"))
    committed = view["next_seed_commitment"]
    assert len(committed) == 64
    players = []
    for n in range(2):
        player = register(anon, f"cp{n}")
        deposit(cashier, player, 1000)
        players.append(player)
    game = HttpTable(table["id"], players, random.Random(2))
    game.sit_all()
    game.play_hands(3)
    feed = ok(players[0].client.get(f"/api/v1/tables/{table['id']}/events"))["events"]
    first_card = next(e["seq"] for e in feed if e["type"] == "CardDealt")
    published = next(e for e in feed if e["type"] == "SeedCommitted" and e["data"]["number"] == 1)
    assert published["seq"] < first_card and published["data"]["seed_commitment"] == committed
    pages = ok(players[0].client.get(f"/api/v1/tables/{table['id']}/checkpoints?page_size=2"))
    assert pages["count"] >= 3 and len(pages["results"]) == 2 and pages["next"]
    rows = pages["results"]
    assert rows[0]["version"] < rows[1]["version"]
    assert set(rows[0]) == {"version", "hash", "signature", "key_id", "at", "hash_forms", "facts_sha256"}
    key = base64.b64decode(ok(anon.get("/api/v1/fairness/public-key"))["public_key"])
    by_seq = {e["seq"]: e for e in feed}
    for row in rows:
        message = f"{table['id']}:{row['version']}:{row['hash']}:{row['hash_forms']}:{row['facts_sha256']}".encode()
        assert ed25519.verify(key, message, base64.b64decode(row["signature"]))
        assert by_seq[row["version"]]["hash"] == row["hash"]  # the feed shows the chain up to a checkpoint
    later = ok(players[0].client.get(f"/api/v1/tables/{table['id']}/checkpoints?after={rows[0]['version']}"))
    assert later["results"][0] == rows[1]
    assert_error(players[0].client.get(f"/api/v1/tables/{table['id']}/checkpoints?after=-1"), 400, "invalid_request")
    assert_error(players[0].client.get("/api/v1/tables/424242/checkpoints"), 404, "not_found")
    assert_error(anon.get(f"/api/v1/tables/{table['id']}/checkpoints"), 401, "not_authenticated")
    latest = max(
        r["version"] for r in ok(players[0].client.get(f"/api/v1/tables/{table['id']}/checkpoints"))["results"]
    )
    assert all("hash" not in e for e in feed if e["seq"] > latest)  # nothing of a hand in play
    # v1.3: a key's valid_from is when it was put in service: here, its first checkpoint (nobody asked for the
    # key before it signed)
    first = min(Checkpoint.objects.filter(key_id=rows[0]["key_id"]).values_list("at", flat=True))
    entry = next(k for k in ok(anon.get("/api/v1/fairness/public-key"))["keys"] if k["key_id"] == rows[0]["key_id"])
    assert entry["valid_from"] is not None and datetime.fromisoformat(entry["valid_from"]) == first


def test_a_key_in_service_cannot_be_moved_by_the_app_role(anon):
    """The record of when a key was put in service is append-only, also for the application's role."""
    from django.db import connection
    from django.db.utils import DatabaseError

    ok(anon.get("/api/v1/fairness/public-key"))
    for statement in ("UPDATE tables_keyinservice SET valid_from = now()", "DELETE FROM tables_keyinservice"):
        with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(statement)


# RFC 8032, section 7.1, TEST 1 and TEST 3
RFC8032 = [
    (
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    ),
    (
        "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
        "af82",
        "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
    ),
]


@pytest.mark.parametrize(("public", "message", "signature"), RFC8032)
def test_the_tools_ed25519_passes_the_rfc_8032_vectors(public, message, signature):
    assert ed25519.verify(bytes.fromhex(public), bytes.fromhex(message), bytes.fromhex(signature))
    bad = bytearray(bytes.fromhex(signature))
    bad[5] ^= 1
    assert not ed25519.verify(bytes.fromhex(public), bytes.fromhex(message), bytes(bad))


def test_the_tools_ed25519_agrees_with_cryptography():
    rng = random.Random(8)
    for n in range(20):
        key = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(f"k{n}".encode()).digest())
        public = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        message = rng.randbytes(rng.randrange(0, 80))
        signature = key.sign(message)
        assert ed25519.verify(public, message, signature)
        assert not ed25519.verify(public, message + b"!", signature)


def test_the_verifier_tool_imports_nothing_but_the_standard_library_and_the_rules_core():
    import subprocess

    probe = (
        "import sys; sys.path.insert(0, 'tools'); import verify_hand; "
        "third = sorted({m.split('.')[0] for m in sys.modules} & {'django', 'rest_framework', 'cryptography', "
        "'psycopg', 'celery', 'redis', 'yaml'}); "
        "ours = sorted(m for m in sys.modules if m.split('.')[0] in ('tables', 'casino', 'ledger') "
        "and not m.startswith('rules') and m != 'tables'); "
        "print(third, ours); sys.exit(1 if third or ours else 0)"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
