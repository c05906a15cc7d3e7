"""The checkpoint signer signs only what it has replayed (issue #25, API.md v1.2, docs/security.md "Checkpoints").

With ``CHECKPOINT_SIGNER = "signer"`` (as ``make run`` runs): the commands that end hands write no checkpoint and
ask the signer; the application role may not insert one; the signer, connected as its own database role, replays
the hands and signs the end of the last one; after a rewrite that kept the hash strings it refuses, signs
nothing and records the failure the dashboard and ``/metrics`` show.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from django.conf import settings
from django.db import DatabaseError, connection, transaction

from backoffice import dbroles
from backoffice.models import VerificationFailure
from tables import after_commit, checkpoint_signing
from tables.models import Checkpoint, Hand
from tables.signer import sign_table
from tables.verify import verify_hand
from tests.conftest import owner_cursor
from tests.support.play import make_players, make_table, play_hands

pytestmark = pytest.mark.django_db(transaction=True)


def _signer_credentials() -> dict[str, Any]:
    url = os.environ.get("SIGNER_DATABASE_URL")
    if not url:
        pytest.skip("needs SIGNER_DATABASE_URL (set by `make test`)")
    parts = urlsplit(url)
    return {"USER": unquote(parts.username or ""), "PASSWORD": unquote(parts.password or "")}


@contextmanager
def as_signer() -> Iterator[None]:
    """The default connection as the signer's role for the block (what the signer process connects as)."""
    credentials = _signer_credentials()
    saved = {key: connection.settings_dict.get(key) for key in credentials}
    connection.close()
    connection.settings_dict.update(credentials)
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict.update(saved)


@pytest.fixture
def signer_mode(settings: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The database granted as `migrate` grants it when the signer signs, and the commands' requests to it."""
    signer = _signer_credentials()["USER"]
    app = settings.DATABASE_APP_ROLE
    with owner_cursor() as owner:
        dbroles.grant_app_privileges(owner, app, signer_role=signer)
    settings.CHECKPOINT_SIGNER = "signer"
    asked: list[int] = []
    monkeypatch.setattr(after_commit, "hand_ended", asked.append)  # (the queue's delivery is Celery's)
    try:
        yield asked
    finally:
        with owner_cursor() as owner:
            dbroles.grant_app_privileges(owner, app, signer_role=signer)


def test_hands_end_unsigned_the_application_cannot_sign_and_the_signer_replays_then_signs(signer_mode):
    players = make_players(2, chips=1000, prefix="sig")
    table = make_table("classic", bank="house")
    play_hands(table, players, 2, random.Random(25))
    assert Checkpoint.objects.filter(table_id=table.pk).count() == 0, "a command signed"
    assert set(signer_mode) == {table.pk}, "the commands did not ask the signer"
    last = Hand.objects.filter(table_id=table.pk).exclude(status="in_play").order_by("-number").first()
    stored = connection.cursor()
    stored.execute(
        "SELECT hash FROM tables_event WHERE stream_id = %s AND version = %s", [table.pk, last.closed_version]
    )
    forged = [
        "INSERT INTO tables_checkpoint (table_id, version, hash, key_id, signature, at) "
        "VALUES (%s, %s, %s, 'forged', 'AAAA', now())",
        [table.pk, last.closed_version, stored.fetchone()[0]],
    ]
    with pytest.raises(DatabaseError, match="permission denied"), transaction.atomic(), connection.cursor() as c:
        c.execute(*forged)

    with as_signer():
        outcome = sign_table(table.pk)
        again = sign_table(table.pk)
    assert outcome.signed is not None and outcome.signed >= last.closed_version and not outcome.refused
    assert len(outcome.hands) == 2 and again.signed is None  # nothing new to sign
    checkpoint = Checkpoint.objects.get(table_id=table.pk)
    assert checkpoint_signing.checkpoint_signature_ok(
        table.pk,
        checkpoint.version,
        checkpoint.hash,
        checkpoint.key_id,
        checkpoint.signature,
        checkpoint.hash_forms,
        checkpoint.facts_sha256,
    )
    assert checkpoint.hash_forms is not None and checkpoint.hash_forms.endswith("3@1")  # every event in form 3
    for hand in Hand.objects.filter(table_id=table.pk).exclude(status="in_play"):
        report = verify_hand(hand, record=False)
        assert report.failing() == {}, report


def test_the_signer_refuses_a_rewrite_that_kept_the_hash_strings_and_raises_an_alert(signer_mode):
    players = make_players(2, chips=1000, prefix="sgr")
    table = make_table("classic", bank="house")
    play_hands(table, players, 1, random.Random(26))
    with as_signer():
        first = sign_table(table.pk)
    assert first.signed is not None
    play_hands(table, players, 1, random.Random(27))
    hand = Hand.objects.filter(table_id=table.pk).exclude(status="in_play").order_by("-number").first()
    # the owner's rewrite of issue #25: a bet's amount changed, every hash string kept
    with owner_cursor(triggers_off=["tables_event"]) as owner:
        owner.execute(
            "UPDATE tables_event SET data = jsonb_set(data, '{amount}', to_jsonb((data->>'amount')::int * 10)) "
            "WHERE stream_id = %s AND version BETWEEN %s AND %s AND type = 'BetPlaced'",
            [table.pk, hand.opened_version, hand.closed_version],
        )
        assert owner.rowcount >= 1
    alerts = VerificationFailure.objects.filter(table_id=table.pk, source="signer").count()
    with as_signer():
        refused = sign_table(table.pk)
        still = sign_table(table.pk)
    assert refused.signed is None and hand.pk in refused.refused, refused
    assert {"replay", "chain"} & refused.refused[hand.pk].keys(), refused.refused
    assert still.signed is None and still.refused  # it keeps refusing until someone has looked
    assert list(Checkpoint.objects.filter(table_id=table.pk).values_list("version", flat=True)) == [first.signed]
    assert VerificationFailure.objects.filter(table_id=table.pk, source="signer").count() > alerts


def test_the_signers_role_reads_no_credential_and_writes_only_checkpoints_and_alerts(signer_mode):
    with as_signer(), connection.cursor() as cursor:
        held = dbroles.privileges_held(cursor, _signer_credentials()["USER"])
    writes = sorted(line for line in held if line.split()[-1] in {"INSERT", "UPDATE", "DELETE", "TRUNCATE"})
    assert writes == ["table casino_verificationfailure INSERT", "table tables_checkpoint INSERT"], writes
    for secret in ("knox_authtoken", "django_session", "axes_accessattempt", "tables_idempotencyrecord"):
        assert f"table {secret} SELECT" not in held
    assert "column auth_user.password SELECT" not in held and "column auth_user.username SELECT" in held
    assert "database TEMPORARY" not in held
    assert settings.CHECKPOINT_SIGNER == "signer"


def test_a_real_signer_worker_signs_what_the_commands_ask_for(signer_mode, settings, spawn, child_env, monkeypatch):
    """The whole path: a command ends a hand, asks the signer's queue after commit; a Celery worker connected as
    the signer's role, holding the signing key (and the sealing key, to open the face-down cards it replays),
    replays and signs."""
    import uuid

    from tests.conftest import celery_worker_args, child_database_url, wait_for

    queue = f"signer-test-{uuid.uuid4().hex[:12]}"  # this test's own queue: nothing shared with other runs
    settings.CHECKPOINT_SIGNER_QUEUE = queue
    monkeypatch.undo()  # the commands really ask (after_commit.hand_ended is no longer recorded)
    credentials = _signer_credentials()
    url = urlsplit(child_database_url())
    signer_url = url._replace(netloc=f"{credentials['USER']}:{credentials['PASSWORD']}@{url.netloc.rsplit('@', 1)[-1]}")
    env = {**child_env, "DATABASE_URL": signer_url.geturl(), "CHECKPOINT_SIGNER": "signer"}
    spawn(celery_worker_args(queue, pool="threads", concurrency=1), env=env)
    players = make_players(2, chips=1000, prefix="sgw")
    table = make_table("classic", bank="house")
    play_hands(table, players, 1, random.Random(28))
    assert wait_for(lambda: Checkpoint.objects.filter(table_id=table.pk).exists(), timeout=90), "nothing signed"
    checkpoint = Checkpoint.objects.get(table_id=table.pk)
    assert checkpoint_signing.checkpoint_signature_ok(
        table.pk,
        checkpoint.version,
        checkpoint.hash,
        checkpoint.key_id,
        checkpoint.signature,
        checkpoint.hash_forms,
        checkpoint.facts_sha256,
    )
    assert checkpoint.hash_forms is not None and checkpoint.hash_forms.endswith("3@1")  # every event in form 3


def _rewrite_last_hand(table_id: int) -> Hand:
    """The owner's rewrite of issue #25 on the table's last settled hand: a bet's amount changed, hashes kept."""
    hand = Hand.objects.filter(table_id=table_id).exclude(status="in_play").order_by("-number").first()
    with owner_cursor(triggers_off=["tables_event"]) as owner:
        owner.execute(
            "UPDATE tables_event SET data = jsonb_set(data, '{amount}', to_jsonb((data->>'amount')::int * 10)) "
            "WHERE stream_id = %s AND version BETWEEN %s AND %s AND type = 'BetPlaced'",
            [table_id, hand.opened_version, hand.closed_version],
        )
        assert owner.rowcount >= 1
    return hand


def test_the_signer_alerts_once_per_table_and_cause_not_at_every_attempt(signer_mode):
    """Issue #43: one refused table had the signer write a new alert at every attempt (every 10 s by the periodic
    task), burying every other alert. Now: one alert per table and cause (hand and failing checks), however often
    the signer refuses; a new cause, or another table, alerts again."""
    players = make_players(2, chips=1000, prefix="sgo")
    tables = [make_table("classic", bank="house") for _ in range(2)]
    for table in tables:
        play_hands(table, players, 1, random.Random(43))
    tampered = [_rewrite_last_hand(table.pk) for table in tables]

    def alerts(table_id: int) -> list[tuple[int | None, list[str]]]:
        rows = VerificationFailure.objects.filter(table_id=table_id, source="signer").order_by("id")
        return [(row.hand_id, sorted(row.checks)) for row in rows]

    with as_signer():
        for _ in range(5):  # the periodic task's attempts
            for table in tables:
                assert sign_table(table.pk).refused
    for table, hand in zip(tables, tampered, strict=True):
        first = alerts(table.pk)
        assert first and all(hand_id in (hand.pk, None) for hand_id, _ in first)
        assert len(first) == len(set(map(repr, first))), f"repeated alerts: {first}"
    # a new cause at the same table (another hand rewritten) alerts once more, for that hand only
    before = alerts(tables[0].pk)
    play_hands(tables[0], players, 1, random.Random(44))
    later = _rewrite_last_hand(tables[0].pk)
    with as_signer():
        for _ in range(3):
            assert later.pk in sign_table(tables[0].pk).refused
    added = alerts(tables[0].pk)[len(before) :]
    assert added and {hand_id for hand_id, _ in added} <= {later.pk, None}
    assert len(added) == len(set(map(repr, added))), f"repeated alerts: {added}"
    assert alerts(tables[0].pk)[: len(before)] == before
