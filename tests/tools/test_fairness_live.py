"""Provable fairness end to end, against a live server (gunicorn as a child process): ``tools/verify_hand.py``
checks hands it did not play, of every preset and both bank modes; then the database owner rewrites history
(a dealt card of a settled hand; the seed of a hand after its commitment was public) and the signed checkpoints
catch it in ``verify_hands --all``, the API's verify and ``tools/verify_hand.py``."""

from __future__ import annotations

import hashlib
import random
import secrets
from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from tables import fairness
from tables.models import Checkpoint, Hand
from tables.store import load_stream
from tests.support.fairness_tools import (
    api_get,
    api_token,
    rewrite_event,
    rewrite_events,
    run_live_verifier,
    start_live_server,
)
from tests.support.play import make_players, make_table, play_hands, state_of

pytestmark = pytest.mark.django_db(transaction=True)
PRESETS = ("classic", "italian", "spanish", "hungarian")


@pytest.fixture
def server(spawn, child_env) -> str:
    return start_live_server(spawn, child_env)


def _verify_all() -> tuple[bool, str]:
    out = StringIO()
    try:
        call_command("verify_hands", "--all", stdout=out)
    except CommandError:
        return False, out.getvalue()
    return True, out.getvalue()


def test_the_verifier_tool_checks_hands_of_every_preset_and_bank_and_checkpoints_catch_rewrites(server):
    rng = random.Random(13)
    played: list[tuple[object, list, Hand]] = []
    for preset in PRESETS:
        for bank in ("player", "house"):
            players = make_players(3, prefix=f"{preset[:2]}{bank[0]}")
            table = make_table(preset, bank=bank)
            play_hands(table, players, 2, rng)
            hand = Hand.objects.filter(table=table, status="settled").order_by("number").first()
            assert hand is not None
            played.append((table, players, hand))

    # every preset and bank: a participant checks a hand with the tool alone (it played none of it)
    for _table, players, hand in played:
        participant = next(p for p in players if hand.participants.filter(user=p).exists())
        code, output = run_live_verifier(server, api_token(server, participant.username), hand.pk)
        assert code == 0, output
        lines = [line for line in output.splitlines() if line[:4] in ("ok  ", "FAIL")]
        assert all(line.startswith("ok  ") for line in lines), output
        checks = {line.split()[1] for line in lines}
        assert {"commitment", "published", "deck", "deals", "feed", "results", "ledger", "chain"} <= checks, output
        assert "checkpoint" in checks and "hashes recomputed from the content" in output, output
        assert "holds yours" in output
    ok, report = _verify_all()
    assert ok, report

    def token_of_a_participant(players: list[Any], hand: Hand) -> str:
        """Each attacked hand is checked by one of its players (staff get no API token, issue #43)."""
        participant = next(p for p in players if hand.participants.filter(user=p).exists())
        return api_token(server, participant.username)

    # 1. a dealt card of a settled hand, rewritten by the database owner, the chain re-hashed after it
    table, players, hand = played[0]
    player_token = token_of_a_participant(players, hand)
    dealt = next(e for e in load_stream(table.pk) if e.type == "CardDealt" and e.data["number"] == hand.number)
    other = next(c for c in ("1O", "2O", "3O") if c != dealt.data["card"])
    rewrite_event(table.pk, dealt.version, lambda data: {**data, "card": other})
    signed = Checkpoint.objects.filter(table=table, version__gte=dealt.version).order_by("version").first()
    assert signed is not None
    ok, report = _verify_all()
    assert not ok and f"no longer matches the checkpoint signed at version {signed.version}" in report, report
    verdict = api_get(server, player_token, f"/api/v1/hands/{hand.pk}/verify")
    assert f"checkpoint signed at version {signed.version}" in verdict["checkpoint"], verdict
    code, output = run_live_verifier(server, player_token, hand.pk)
    assert code == 1 and "FAIL checkpoint" in output and f"version {signed.version}" in output, output

    # 2. the operator (holding the sealing key) swaps the next hand's seed after its commitment was published
    table, players = played[1][0], played[1][1]  # classic, house bank: the next hand waits for bets, no card yet
    state = state_of(table.pk)
    assert state.hand is not None and state.hand.phase == "betting" and state.pledge is not None
    stream = load_stream(table.pk)
    committed = next(e for e in stream if e.type == "SeedCommitted" and e.data["number"] == state.hand.number)
    opened = next(e for e in stream if e.type == "HandOpened" and e.data["number"] == state.hand.number)
    chosen = secrets.token_bytes(32)
    commitment = hashlib.sha256(chosen).hexdigest()
    sealed = fairness.seal(table.pk, state.hand.number, chosen.hex())
    rewrite_events(
        table.pk,
        {
            committed.version: lambda data: {**data, "seed_commitment": commitment, "sealed_seed": sealed},
            opened.version: lambda data: {**data, "seed_commitment": commitment},
        },
    )
    assert state_of(table.pk).pledge.commitment == commitment  # the table now deals from the operator's seed
    play_hands(table, players, 1, rng)
    swapped = Hand.objects.get(table=table, number=state.hand.number)
    settled = next(e for e in load_stream(table.pk) if e.type == "HandSettled" and e.data["number"] == swapped.number)
    assert settled.data["server_seed"] == chosen.hex()  # the swap "worked" and the hand itself is consistent...
    ok, report = _verify_all()
    assert not ok and f"hand {swapped.pk} " in report and "no longer matches the checkpoint" in report, report
    player_token = token_of_a_participant(players, swapped)
    verdict = api_get(server, player_token, f"/api/v1/hands/{swapped.pk}/verify")
    # ...but not signed: the first checkpoint after the commitment (published a whole hand ahead, v1.2) fails
    covering = Checkpoint.objects.filter(table=table, version__gte=committed.version).order_by("version").first()
    assert covering is not None
    assert f"checkpoint signed at version {covering.version}" in verdict["checkpoint"], verdict
    code, output = run_live_verifier(server, player_token, swapped.pk)
    assert code == 1 and "FAIL checkpoint" in output, output
