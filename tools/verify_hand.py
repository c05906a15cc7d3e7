#!/usr/bin/env python3
"""Verify one hand of Seven and a Half yourself, trusting nothing the server computes.

    python tools/verify_hand.py --url https://casino.example --token YOUR_TOKEN HAND_ID

Uses only the Python standard library, the standard-library modules of the project's rules core (``tables/rules``:
the card codes, the published shuffle, scoring and the rule sets) and the pure-Python Ed25519 check beside this
file. It fetches the hand's history, the table's events
feed, its signed checkpoints and the public signing key, and checks, one line each:

- commitment   sha256(revealed server seed) is the hand's seed commitment;
- published    that commitment was in the events feed before the hand's first card;
- client seed  the hand's client seed contains your own client seed as it was then (and is the participants'
               client seeds of that moment, joined with ':' in seat order);
- deck         the published shuffle of (server seed, client seed, hand number) gives the deck shown;
- deals        every card dealt, in order, is the next card of that deck;
- totals       every hand's total, from its cards, under the table's rules;
- results      every punter hand's category, outcome, multiplier and net, re-decided from the cards and bets
               by the rules core (the banker's net is minus their sum);
- chain        the feed's hash links are unbroken up to the latest signed checkpoint;
- checkpoint   every signed checkpoint verifies (Ed25519, the published key it names) and matches the chain
               hash the feed shows at its version, and one covers this hand.

Exit status 0 when every check passes, 1 when one fails, 2 when the service cannot be read.
See docs/fairness.md for the scheme and README.md ("Checking a hand yourself").
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import sys
import types
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the project's root: tables.rules
sys.path.insert(0, str(Path(__file__).resolve().parent))

# Only the core's standard-library modules are loaded. The package's __init__ re-exports the whole core, whose
# events and state records are msgspec Structs; the verifier needs none of them, and a player should be able to run
# it with nothing installed and every line it runs readable. So ``tables.rules`` is registered as a bare package of
# its directory (its __init__ is not run) and the four modules are imported one by one. The live fairness test runs
# this tool with ``python -I -S`` (no site-packages at all), so it fails if anything else gets imported.
_core = types.ModuleType("tables.rules")
_core.__path__ = [str(ROOT / "tables" / "rules")]
sys.modules.setdefault("tables.rules", _core)

import ed25519  # noqa: E402 - after the bare package above, on purpose

from tables.rules.ruleset import rules_from_dict  # noqa: E402
from tables.rules.scoring import evaluate, settle_hand  # noqa: E402
from tables.rules.shuffle import shuffle_deck  # noqa: E402

GENESIS = "0" * 64


class Service:
    """The casino's API, read with a player's (or an auditor's) token."""

    def __init__(self, url: str, token: str, timeout: float = 30) -> None:
        self.base = url.rstrip("/") + "/api/v1"
        self.token = token
        self.timeout = timeout

    def get(self, path: str, **query: Any) -> Any:
        url = self.base + path + ("?" + urllib.parse.urlencode(query) if query else "")
        request = urllib.request.Request(
            url, headers={"Authorization": f"Token {self.token}", "Accept": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=self.timeout) as response:
            return json.load(response)

    def pages(self, path: str, **query: Any) -> list[Any]:
        rows: list[Any] = []
        page = 1
        while True:
            body = self.get(path, page=page, page_size=200, **query)
            rows += body["results"]
            if not body.get("next"):
                return rows
            page += 1

    def events(self, table_id: int) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = []
        after = 0
        while True:
            body = self.get(f"/tables/{table_id}/events", after=after)
            if not body["events"]:
                return events
            events += body["events"]
            after = body["events"][-1]["seq"]


class Report:
    def __init__(self) -> None:
        self.failed = 0

    def line(self, ok: bool, check: str, text: str) -> bool:
        if not ok:
            self.failed += 1
        print(f"{'ok  ' if ok else 'FAIL'} {check:<12} {text}")
        return ok


def _seeds_at(events: list[dict[str, Any]], before_seq: int) -> tuple[dict[str, str], dict[int, str]]:
    """(player id -> client seed, seat -> player id) from the feed, as they were before ``before_seq``."""
    seeds: dict[str, str] = {}
    seats: dict[int, str] = {}
    for e in events:
        if e["seq"] >= before_seq:
            break
        data = e["data"]
        if e["type"] == "SeatTaken":
            seats[data["seat"]] = data["player_id"]
            seeds[data["player_id"]] = data["client_seed"]
        elif e["type"] == "ClientSeedSet":
            seeds[data["player_id"]] = data["client_seed"]
        elif e["type"] == "SeatLeft":
            seats.pop(data["seat"], None)
    return seeds, seats


def check_hand(service: Service, hand_id: int) -> int:
    report = Report()
    me = service.get("/me")
    history = service.get(f"/hands/{hand_id}")
    table_id, number = history["table"], history["number"]
    print(f"hand {hand_id}: table {table_id}, hand #{number}, {history['status']}; checked as {me['username']}")
    if history["status"] != "settled":
        report.line(False, "status", f"the hand is {history['status']}: only a settled hand can be checked")
        return 1
    events = service.events(table_id)
    checkpoints = service.pages(f"/tables/{table_id}/checkpoints")
    keys = {k["key_id"]: base64.b64decode(k["public_key"]) for k in service.get("/fairness/public-key")["keys"]}

    opened = next((e for e in events if e["type"] == "HandOpened" and e["data"]["number"] == number), None)
    closed = next(
        (e for e in events if e["type"] in ("HandSettled", "HandAbandoned") and e["data"]["number"] == number), None
    )
    if opened is None or closed is None:
        report.line(False, "feed", f"the events feed does not hold hand #{number} from its opening to its end")
        return 1
    deals = sorted(history["deals"], key=lambda d: d["seq"])
    first_card = deals[0]["seq"] if deals else closed["seq"]
    seed, commitment, client_seed = history["server_seed"], history["seed_commitment"], history["client_seed"]

    # 1. the revealed seed against the commitment
    actual = hashlib.sha256(bytes.fromhex(seed)).hexdigest() if seed else None
    report.line(actual == commitment, "commitment", f"sha256(server_seed) = {actual}, committed {commitment}")

    # 2. the commitment was public before the first card
    published = [
        e for e in events if e["type"] == "SeedCommitted" and e["data"]["number"] == number and e["seq"] < first_card
    ]
    if published:
        last = published[-1]
        report.line(
            last["data"]["seed_commitment"] == commitment,
            "published",
            f"committed at seq {last['seq']}, first card at seq {first_card}",
        )
    elif opened["data"].get("server_seed") or opened["data"].get("client_seed"):
        report.line(
            opened["data"]["seed_commitment"] == commitment and opened["seq"] < first_card,
            "published",
            f"a hand of the old form: committed as it opened (seq {opened['seq']}), after its client seed was fixed",
        )
    else:
        report.line(False, "published", f"no commitment of hand #{number} in the feed before seq {first_card}")

    # 3. the client seed holds mine as it was then, and is the participants' seeds of that moment
    fixed_at = first_card if not opened["data"].get("client_seed") else opened["seq"]
    seeds, seats = _seeds_at(events, fixed_at)
    mine = seeds.get(str(me["id"]))
    # the participants then: the banker and the entrants still in the hand (a punter skipped before the first
    # card, e.g. no bet in a betting window, is out of it), in seat order
    skipped = {
        e["data"]["seat"] for e in events if e["type"] == "PunterSkipped" and opened["seq"] < e["seq"] < fixed_at
    }
    members = sorted(
        {s for s in opened["data"]["entrants"] if s not in skipped}
        | ({history["banker"]["seat"]} if history["banker"]["seat"] is not None else set())
    )
    expected = ":".join(seeds.get(seats.get(s, ""), "?") for s in members)
    parts = (client_seed or "").split(":")
    my_seat = next((seat for seat, pid in seats.items() if pid == str(me["id"])), None)
    if mine is None or my_seat not in members:
        report.line(
            expected == client_seed,
            "client seed",
            f"{client_seed!r} is the participants' seeds in seat order ({expected!r}); you were not dealt in",
        )
    else:
        report.line(
            mine in parts and expected == client_seed,
            "client seed",
            f"{client_seed!r} holds yours ({mine!r}) and is the participants' seeds in seat order ({expected!r})",
        )

    # 4. the deck and 5. every card dealt, in order
    deck = shuffle_deck(bytes.fromhex(seed), client_seed or "", number) if seed else []
    report.line(deck == history["deck"], "deck", " ".join(deck))
    wrong = [(i, d) for i, d in enumerate(deals) if i >= len(deck) or d["card"] != deck[i]]
    if wrong:
        i, deal = wrong[0]
        expected_card = deck[i] if i < len(deck) else "nothing"
        report.line(False, "deals", f"seq {deal['seq']} dealt {deal['card']}, the deck has {expected_card} there")
    else:
        report.line(True, "deals", f"{len(deals)} cards, each the next of the deck")

    # 6. totals and 7. results, re-decided by the rules core from the cards and the bets
    rules = rules_from_dict(history["rules"])
    bad_totals = []
    scores: dict[tuple[int | None, int], Any] = {}
    for p in history["participants"]:
        split = p["role"] == "punter" and len(p["hands"]) > 1
        for h in p["hands"]:
            score = evaluate(tuple(h["cards"]), rules, split=split)
            scores[(p["seat"], h["index"])] = score
            unplayed_banker = p["role"] == "banker" and closed["data"].get("banker_category") is None
            if unplayed_banker and h["total_half_points"] is None:
                continue  # a banker who did not need to play is not scored
            if score.total_hp != h["total_half_points"]:
                bad_totals.append(
                    f"seat {p['seat']} hand {h['index']}: {h['total_half_points']} shown, {score.total_hp} by the rules"
                )
    report.line(not bad_totals, "totals", "; ".join(bad_totals) or f"{len(scores)} hands")
    settled = closed["data"]
    banker_seat = history["banker"]["seat"]
    banker_score = scores.get((banker_seat, 0)) if settled.get("banker_category") is not None else None
    bad_results = []
    for r in history["results"]:
        score = scores.get((r["seat"], r["hand"]))
        if score is None:
            bad_results.append(f"seat {r['seat']} hand {r['hand']}: no such hand")
            continue
        try:
            outcome, tie, multiplier, net = settle_hand(score, r["bet"], banker_score, rules)
        except ValueError as refused:  # e.g. a rewritten card turned a bust into a hand that needed the banker
            bad_results.append(f"seat {r['seat']} hand {r['hand']}: cannot be re-decided ({refused})")
            continue
        mine_row = (score.category, score.total_hp, outcome, tie, multiplier, net)
        shown = (r["category"], r["total_half_points"], r["outcome"], r["tie"], r["multiplier"], r["net"])
        if mine_row != shown:
            bad_results.append(f"seat {r['seat']} hand {r['hand']}: shown {shown}, re-decided {mine_row}")
    banker_net = settled.get("banker_net")
    if banker_net is not None and banker_net != -sum(r["net"] for r in history["results"]):
        bad_results.append(f"the banker's net {banker_net} is not minus the punters' nets")
    report.line(not bad_results, "results", "; ".join(bad_results) or f"{len(history['results'])} punter hands")

    # 8. the chain links and 9. the signed checkpoints
    chained = [e for e in events if "hash" in e]
    broken = None
    previous = GENESIS
    for e in chained:
        if e["prev_hash"] != previous:
            broken = e["seq"]
            break
        previous = e["hash"]
    if chained and chained[0]["seq"] != 1:
        broken = chained[0]["seq"]
    report.line(
        broken is None, "chain", f"{len(chained)} links unbroken" if broken is None else f"broken at seq {broken}"
    )
    by_seq = {e["seq"]: e for e in chained}
    problems = []
    for c in checkpoints:
        message = f"{table_id}:{c['version']}:{c['hash']}".encode()
        key = keys.get(c["key_id"])
        if key is None or not ed25519.verify(key, message, base64.b64decode(c["signature"])):
            problems.append(f"the checkpoint at version {c['version']} is not signed by published key {c['key_id']}")
            break
        shown = by_seq.get(c["version"], {}).get("hash")
        if shown != c["hash"]:
            problems.append(
                f"the chain no longer matches the checkpoint signed at version {c['version']}: "
                f"the feed shows {shown}, {c['hash']} was signed (history rewritten)"
            )
            break
    covering = next((c for c in checkpoints if c["version"] >= closed["seq"]), None)
    if covering is None:
        problems.append(f"no signed checkpoint covers the hand's end (seq {closed['seq']}) yet")
    covered = f"version {covering['version']} covers this hand" if covering else ""
    summary = f"{len(checkpoints)} signatures verify (Ed25519 in pure Python); {covered}"
    report.line(not problems, "checkpoint", "; ".join(problems) or summary)
    print("every check passed" if not report.failed else f"{report.failed} check(s) FAILED")
    return 1 if report.failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("hand_id", type=int)
    parser.add_argument("--url", required=True, help="the casino's address, e.g. https://casino.example")
    parser.add_argument("--token", required=True, help="your API token (POST /api/v1/auth/token)")
    args = parser.parse_args(argv)
    try:
        return check_hand(Service(args.url, args.token), args.hand_id)
    except (urllib.error.URLError, OSError, ValueError, KeyError) as exc:
        print(f"FAIL service     cannot read the hand: {exc}")
        return 2


if __name__ == "__main__":
    sys.exit(main())
