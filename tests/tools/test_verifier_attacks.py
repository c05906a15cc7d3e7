"""Issue #42: what the casino's insiders did to fool the outside verifier, each done again and failing for them.

- An export edited on disk with its hash forms removed (or downgraded to form 1, which nobody outside can
  recompute), a bet 5 -> 50 with it: the checkpoints sign every event's form (API.md v1.3).
- The owner role's rewrite of a signed hand in the database (bets x10, the settlement and the ledger rewritten to
  match, the hash forms dropped, every hash string kept): the export fails, and so does the server's own verify.
- A winning hand re-settled as lost in the export's unsigned fields (the history and its ledger), and a history
  that claims a different client seed: results come from signed events and facts only, and the history that
  disagrees with them fails.
- Hostile files (wrong types, huge lists, deep nesting, thousands of duplicate checkpoints): one line, exit 1,
  never a traceback (hypothesis generates them).

The server's own verify agrees with the verifier on each: for an edit of the file alone, the hand it holds verifies
(only the file lies); for a change in the database (the owner's rewrite, also checked live with ``--url`` against
a running server; the re-settlement done in the ledger) it fails. The one it cannot tell is the forged seed
change, appended through its own code: only the player's record (``--my-seeds``) names it.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tables import loader
from tables.models import Hand
from tables.verify import verify_hand
from tests.conftest import ROOT, owner_cursor
from tests.support.fairness_tools import (
    api_get,
    api_token,
    current_key,
    run_live_verifier,
    run_verifier,
    start_live_server,
)
from tests.support.game_helpers import ok
from tests.support.play import make_players, make_table, play_hands

pytestmark = pytest.mark.django_db(transaction=True)  # checkpoints are written once a command commits


def _played(preset: str = "classic", bank: str = "house", hands: int = 4, seed: int = 3) -> tuple[Any, list[Any]]:
    players = make_players(2, prefix=f"va{preset[:2]}{bank[0]}")
    table = make_table(preset, bank=bank)
    play_hands(table, players, hands, random.Random(seed))
    return table, players


def _export(client: Any, hand: Hand, path: Path) -> dict[str, Any]:
    body = ok(client.get(f"/api/v1/hands/{hand.pk}/export"))
    path.write_text(json.dumps(body))
    return body


def _client(user: Any) -> Any:
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(user)
    return client


def _hand_and_export(tmp_path: Path, **played: Any) -> tuple[Any, list[Any], Hand, dict[str, Any], Path]:
    table, players = _played(**played)
    hand = Hand.objects.filter(table=table, status="settled").order_by("number")[1]
    participant = next(p for p in players if hand.participants.filter(user=p).exists())
    path = tmp_path / f"hand-{hand.pk}.json"
    body = _export(_client(participant), hand, path)
    code, out = run_verifier(path, "--public-key", current_key())
    assert code == 0, out  # the genuine export verifies
    return table, players, hand, body, path


def _times_ten(body: dict[str, Any], number: int) -> dict[str, Any]:
    """The edit on disk: every stake of hand ``number`` and its results x10, in the events, the history and the
    ledger, consistently."""
    forged = copy.deepcopy(body)
    for e in forged["events"]:
        data = e["data"]
        if e["type"] in ("BetPlaced", "StakeRaised") and e["seq"] > _opened(forged, number):
            data["amount"] *= 10
            data["stake"] *= 10
        if e["type"] == "HandSettled" and data["number"] == number:
            for r in data["results"]:
                r["bet"] *= 10
                r["net"] *= 10
            data["banker_net"] *= 10
            data["payouts"] = {k: v * 10 for k, v in data["payouts"].items()}
    history = forged["hand"]
    for r in history["results"]:
        r["bet"] *= 10
        r["net"] *= 10
    for p in history["participants"]:
        for h in p["hands"]:
            h["bet"] = h["bet"] * 10 if h["bet"] is not None else None
    for tx in history["ledger"]:
        for posting in tx["postings"]:
            posting["amount"] *= 10
    return forged


def _opened(body: dict[str, Any], number: int) -> int:
    return next(e["seq"] for e in body["events"] if e["type"] == "HandOpened" and e["data"]["number"] == number)


def _owners_rewrite(table_id: int, hand: Hand, body: dict[str, Any]) -> list[int]:
    """The owner role, past the append-only triggers: the bets and the settlement of ``hand`` x10 with the ledger
    to match, the hash forms dropped (form 1 is not recomputable outside), every hash string kept. Returns the
    versions of the hand's events (from its opening)."""
    seqs = [e["seq"] for e in body["events"] if e["seq"] >= _opened(body, hand.number)]
    stakes = ("BetPlaced", "StakeRaised")
    with owner_cursor(triggers_off=["tables_event", "ledger_posting", "ledger_transaction"]) as cursor:
        cursor.execute(
            "SELECT version, type, data, metadata FROM tables_event WHERE stream_id = %s AND version = ANY(%s)",
            [table_id, seqs],
        )
        for version, kind, data, metadata in cursor.fetchall():
            data = json.loads(data) if isinstance(data, str) else data
            metadata = json.loads(metadata) if isinstance(metadata, str) else metadata
            if kind in stakes:
                data = {**data, "amount": data["amount"] * 10, "stake": data["stake"] * 10}
            elif kind == "HandSettled" and data["number"] == hand.number:
                results = [{**r, "bet": r["bet"] * 10, "net": r["net"] * 10} for r in data["results"]]
                payouts = {k: v * 10 for k, v in data["payouts"].items()}
                data = {**data, "results": results, "banker_net": data["banker_net"] * 10, "payouts": payouts}
            metadata.pop("hash_form", None)
            cursor.execute(
                "UPDATE tables_event SET data = %s::jsonb, metadata = %s::jsonb WHERE stream_id = %s AND version = %s",
                [json.dumps(data), json.dumps(metadata), table_id, version],
            )
        cursor.execute(
            "UPDATE ledger_posting SET amount = amount * 10 WHERE transaction_id IN "
            "(SELECT id FROM ledger_transaction WHERE hand_id = %s)",
            [hand.pk],
        )
        cursor.execute("DELETE FROM tables_snapshot WHERE table_id = %s", [table_id])
    loader.forget_all()
    return seqs


def test_an_export_edited_on_disk_with_its_hash_forms_removed_fails(tmp_path):
    _, _, hand, body, path = _hand_and_export(tmp_path)
    for downgrade in (lambda e: e.pop("hash_form"), lambda e: e.update(hash_form=1)):
        forged = _times_ten(body, hand.number)
        for event in forged["events"]:
            downgrade(event)  # nothing is recomputed for a form nobody outside can recompute...
        path.write_text(json.dumps(forged))
        code, out = run_verifier(path, "--public-key", current_key())
        assert code == 1 and "FAIL chain" in out, out  # ...but the checkpoints sign the form of every event
        assert "names no hash form" in out or "the checkpoints sign form 3 for it" in out, out
        assert "every check passed" not in out
    assert verify_hand(hand, record=False).ok  # the server agrees: what it holds is genuine, only the file lies


def test_the_owners_rewrite_with_the_hash_forms_dropped_is_caught_by_the_export_and_by_the_server(tmp_path):
    table, players, hand, body, path = _hand_and_export(tmp_path)
    participant = next(p for p in players if hand.participants.filter(user=p).exists())
    seqs = _owners_rewrite(table.pk, hand, body)
    rewritten = _export(_client(participant), hand, path)
    assert [e["hash"] for e in rewritten["events"]] == [e["hash"] for e in body["events"]]  # the strings kept
    assert {e["hash_form"] for e in rewritten["events"] if e["seq"] in seqs} == {1}
    code, out = run_verifier(path, "--public-key", current_key())
    assert code == 1 and "FAIL chain" in out and "the checkpoints sign form 3 for it" in out, out
    verdict = verify_hand(hand, record=False)
    assert not verdict.ok and "hash form 1" in verdict["chain"], verdict.checks


def test_the_owners_rewrite_with_the_hash_forms_dropped_fails_the_live_verifier_and_the_servers_verify(
    tmp_path, spawn, child_env
):
    """The review's live case: the same rewrite, checked with ``tools/verify_hand.py --url`` against a running
    server (gunicorn) with the real key; the API's own verify says the same."""
    server = start_live_server(spawn, child_env)
    table, players, hand, body, _ = _hand_and_export(tmp_path)
    participant = next(p for p in players if hand.participants.filter(user=p).exists())
    token = api_token(server, participant.get_username())
    code, out = run_live_verifier(server, token, hand.pk)
    assert code == 0 and "ok   feed" in out, out  # genuine, live
    _owners_rewrite(table.pk, hand, body)
    code, out = run_live_verifier(server, token, hand.pk)
    assert code == 1 and "FAIL chain" in out and "the checkpoints sign form 3 for it" in out, out
    assert "every check passed" not in out
    # the API's verify, asked by the same player (staff get no API token, issue #43)
    verdict = api_get(server, token, f"/api/v1/hands/{hand.pk}/verify")
    assert "hash form 1" in verdict["chain"], verdict  # (each check "ok" or what differs)


def test_a_winning_hand_resettled_as_lost_in_the_unsigned_fields_fails(tmp_path):
    table, players = _played(hands=8, seed=21)
    won = None
    path = tmp_path / "won.json"
    for hand in Hand.objects.filter(table=table, status="settled").order_by("number")[1:]:
        participant = next(p for p in players if hand.participants.filter(user=p).exists())
        body = _export(_client(participant), hand, path)
        if any(r["outcome"] == "win" for r in body["hand"]["results"]):
            won = hand
            break
    assert won is not None, "no punter won a hand"
    forged = copy.deepcopy(body)
    history = forged["hand"]
    for r in history["results"]:
        if r["outcome"] == "win":  # the punter's win turned into a loss, his cards and the ledger to match
            r.update(outcome="lose", net=-r["bet"], multiplier=1)
    for tx in history["ledger"]:
        for posting in tx["postings"]:
            if posting["account"].startswith("player:") and posting["amount"] > 0 and tx["kind"] == "hand_settlement":
                posting["amount"] = 0
    path.write_text(json.dumps(forged))
    code, out = run_verifier(path, "--public-key", current_key())
    assert code == 1 and "FAIL history" in out and "the settlement event says" in out, out
    assert verify_hand(won, record=False).ok  # the server agrees: what it holds is genuine, only the file lies
    # the same in the database, where only the ledger is not chained: the owner moves the winner's payout to the
    # other side of the settlement (the transaction still balances); the server's verify and the verifier fail it
    with owner_cursor(triggers_off=["ledger_posting"]) as cursor:
        cursor.execute(
            "SELECT p.id, p.amount, p.transaction_id FROM ledger_posting p "
            "JOIN ledger_account a ON a.id = p.account_id JOIN ledger_transaction t ON t.id = p.transaction_id "
            "WHERE t.hand_id = %s AND t.kind = 'hand_settlement' AND a.kind = 'wallet' AND p.amount > 1",
            [won.pk],
        )
        posting, amount, tx = cursor.fetchone()
        cursor.execute("UPDATE ledger_posting SET amount = 1 WHERE id = %s", [posting])
        cursor.execute(
            "UPDATE ledger_posting SET amount = amount + %s WHERE id = "
            "(SELECT min(id) FROM ledger_posting WHERE transaction_id = %s AND id <> %s)",
            [amount - 1, tx, posting],
        )
    assert not verify_hand(won, record=False).ok
    _export(_client(participant), won, path)
    code, out = run_verifier(path, "--public-key", current_key())
    assert code == 1 and "FAIL ledger" in out, out


def test_a_history_that_claims_a_different_client_seed_fails(tmp_path):
    _, _, hand, body, path = _hand_and_export(tmp_path, preset="classic", bank="player")
    forged = copy.deepcopy(body)
    history = forged["hand"]
    punter = next(p for p in history["participants"] if p["role"] == "punter")
    ground = "casino-ground-seed"
    punter["client_seed"] = ground
    punter["client_seed_set_at"] = history["seed_committed_at"] + 1  # "set after the commitment"
    history["client_seed"] = ":".join(
        ground if p is punter else p["client_seed"] for p in sorted(history["participants"], key=lambda p: p["seat"])
    )
    path.write_text(json.dumps(forged))
    code, out = run_verifier(path, "--public-key", current_key())
    assert code == 1 and "FAIL history" in out and ground in out, out
    assert verify_hand(hand, record=False).ok  # the server agrees: what it holds is genuine, only the file lies


def _check_in_process(path: Path) -> tuple[int, str]:
    """``tools/verify_hand.py`` run in this process (its ``main``), for the property test's many examples."""
    if str(ROOT / "tools") not in sys.path:
        sys.path.insert(0, str(ROOT / "tools"))
    from verify_hand import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = main([str(path), "--public-key", current_key()])
    return code, out.getvalue()


junk = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=8)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    max_leaves=12,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into ``value`` (dict keys and list indexes), the root first."""
    found = [prefix]
    if isinstance(value, dict):
        for key, inner in value.items():
            found += _paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for i, inner in enumerate(value[:6]):
            found += _paths(inner, (*prefix, i))
    return found


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    value = copy.copy(value)
    value[path[0]] = _replace(value[path[0]], path[1:], new)
    return value


def test_hostile_files_fail_closed_on_one_line(tmp_path):
    _, _, _, body, path = _hand_and_export(tmp_path)
    paths = _paths(body)

    def nested(depth: int) -> Any:
        value: Any = 0
        for _ in range(depth):
            value = [value]
        return value

    huge = st.builds(lambda n, item: [item] * n, st.integers(1000, 20000), junk)
    replacement = st.one_of(junk, huge, st.integers(50, 5000).map(nested))

    @given(where=st.sampled_from(paths), new=replacement)
    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    def hostile(where: tuple[Any, ...], new: Any) -> None:
        try:
            path.write_text(json.dumps(_replace(body, where, new)))
        except (RecursionError, ValueError):
            return  # json cannot even write it
        code, out = _check_in_process(path)
        assert "Traceback" not in out, out
        if code != 0:  # a change the checks do not read may pass; anything else fails, on a line of its own
            assert code == 1 and "FAIL" in out, out
            assert all(line.startswith(("ok  ", "FAIL", "--  ", "hand ", "every", "1 ", "2 ", "3 ", "4 ", "5 "))
                       or line[:1].isdigit() for line in out.splitlines()), out  # fmt: skip

    hostile()
    for text in ("[" * 100_000, "{" + '"a":' * 5, "not json", json.dumps(nested(900)), "7"):
        path.write_text(text)
        code, out = run_verifier(path, "--public-key", current_key())
        assert code == 1 and len(out.strip().splitlines()) <= 3 and "Traceback" not in out, out
    # 3,000 copies of the covering checkpoint, and 3,000 forged ones at one version: one line each, linear
    last = body["events"][-1]["seq"]
    covering = next(c for c in body["checkpoints"] if c["version"] == last)
    path.write_text(json.dumps({**body, "checkpoints": body["checkpoints"] + [covering] * 3000}))
    code, out = run_verifier(path, "--public-key", current_key())
    assert code == 0 and "Traceback" not in out, out
    forged = [{**covering, "signature": covering["signature"][:-4] + f"{i:04d}"} for i in range(3000)]
    path.write_text(json.dumps({**body, "checkpoints": forged}))
    code, out = run_verifier(path, "--public-key", current_key())
    assert code == 1 and "two different checkpoints at version" in out, out


def test_a_seed_change_forged_in_the_victims_name_is_named_by_his_own_record(tmp_path):
    """Issue #42 (the forged seed change): whoever holds the web process's credentials appends a
    ``ClientSeedSet`` in the victim's name with a seed of his choosing (here through the application's own
    pipeline, as the application's database role: the chain, the signer and the server's verify all accept it).
    The victim's own record of the seeds his client set (each with the table version of the answer) does not hold
    it: ``--my-seeds`` names it; his genuine change verifies."""
    from rules import SetClientSeed
    from tables import pipeline
    from tables.store import load_stream

    players = make_players(2, prefix="vms")
    victim = players[0]
    table = make_table("classic", bank="house")
    rng = random.Random(8)
    play_hands(table, players, 1, rng)
    record = {"format": "sevenhalf-my-seeds/1", "player": str(victim.pk), "seeds": []}
    for e in load_stream(table.pk):  # what the client recorded as he sat down (his seat's event)
        if e.type == "SeatTaken" and e.data["player_id"] == str(victim.pk):
            record["seeds"].append({"table": table.pk, "client_seed": e.data["client_seed"], "version": e.version})
    answer = ok(_client(victim).put("/api/v1/me/client-seed", {"client_seed": "mine-1"}, format="json"))
    assert answer["tables"] and answer["tables"][0]["table"] == table.pk
    record["seeds"] += [
        {"table": t["table"], "client_seed": "mine-1", "version": t["version"]} for t in answer["tables"]
    ]
    play_hands(table, players, 2, rng)
    genuine = Hand.objects.filter(table=table, status="settled").order_by("-number").first()
    mine = tmp_path / "my-seeds.json"
    mine.write_text(json.dumps(record))
    path = tmp_path / "genuine.json"
    _export(_client(victim), genuine, path)
    code, out = run_verifier(path, "--public-key", current_key(), "--my-seeds", str(mine))
    assert code == 0 and "ok   my seeds" in out, out
    # the attacker: a seed change in the victim's name, through the application's own code and role
    pipeline.execute(
        table_id=table.pk,
        build=lambda ctx, state: SetClientSeed(player_id=str(victim.pk), client_seed="casino-ground-11E7B"),
        actor_id=victim.pk,
        actor_username=victim.get_username(),
    )
    play_hands(table, players, 2, rng)
    dealt = Hand.objects.filter(table=table, status="settled").order_by("-number").first()
    body = _export(_client(victim), dealt, path)
    assert "casino-ground-11E7B" in body["hand"]["client_seed"]
    assert verify_hand(dealt, record=False).ok  # the server's own verify cannot tell
    code, out = run_verifier(path, "--public-key", current_key())
    assert code == 0, out  # nor can the verifier without his record...
    code, out = run_verifier(path, "--public-key", current_key(), "--my-seeds", str(mine))
    assert code == 1 and "FAIL my seeds" in out and "casino-ground-11E7B" in out, out  # ...with it, it can
