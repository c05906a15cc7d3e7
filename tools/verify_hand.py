#!/usr/bin/env python3
"""Verify one hand of Seven and a Half yourself, trusting nothing the server computes.

    python tools/verify_hand.py EXPORT_FILE --public-key KEY             # offline: GET /hands/{id}/export saved
    python tools/verify_hand.py --url https://casino.example --token YOUR_TOKEN HAND_ID [--public-key KEY]

Uses only the Python standard library, the game's standard-library maths (``gamemath/``: the card codes, the
published shuffle, scoring, the rule sets and the chain hash's canonical form) and the pure-Python Ed25519 check
beside this file. Against a live server it fetches the hand's export, the table's events
feed and its signed checkpoints; offline it reads an export file and fetches nothing. It checks, one line each:

- commitment   sha256(revealed server seed) is the hand's seed commitment;
- published    that commitment was in the events before the hand's first card (and at ``seed_committed_at``);
- client seed  the hand's client seed is the participants' client seeds, joined with ':' in seat order;
- seed timing  for each participant, whether his client seed was set after the commitment was published (then the
               operator could not have chosen the deck against him) or before (he trusts the operator);
- deck         the published shuffle of (server seed, client seed, hand number) gives the deck shown;
- deals        every card dealt, in order, is the next card of that deck;
- feed         every card the events show for the hand (``CardDealt``) is the history's and the deck's;
- totals       every hand's total, from its cards, under the table's rules;
- results      every punter hand's category, outcome, multiplier and net, re-decided from the cards and bets
               by the rules core (the banker's net is minus their sum);
- ledger       every ledger transaction of the hand balances, and each party's postings add up to its net;
- chain        every event's hash recomputed from the event as served (form 2, docs/fairness.md), and the links;
- checkpoint   the checkpoints verify (Ed25519) with a key you trust (``--public-key``, or pinned on first use)
               and match the chain hash at their version, and one covers this hand.

A checkpoint names its key by ``key_id``, the first 16 hex of sha256 of the raw public key (one named as the casino
configured it, from before key ids were derived, is checked against every key you trust). An abandoned hand is
checked as far as it goes: a seed never revealed, or committed more than once, fails ``commitment``. It prints which
rules dealt the hand (``game``: the released version and the sha256 of the rules core, recorded when the hand
opened) and whether they are the rules core it runs itself.

Exit status 0 when every check passes, 1 when one fails, 2 when the service or the file cannot be read.
See docs/fairness.md for the scheme and what each check proves.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the project's root: gamemath, the game's standard-library maths
sys.path.insert(0, str(Path(__file__).resolve().parent))

# Only the game's standard-library maths (``gamemath/``) is imported: a player can run this with nothing installed
# and read every line it runs. The live fairness test runs this tool with ``python -I -S`` (no site-packages at
# all), so it fails if anything else gets imported.
import ed25519  # noqa: E402 - after the paths above

from gamemath.chainhash import served_hash  # noqa: E402
from gamemath.release import rules_sha256  # noqa: E402
from gamemath.ruleset import rules_from_dict  # noqa: E402
from gamemath.scoring import evaluate, settle_hand  # noqa: E402
from gamemath.shuffle import shuffle_deck  # noqa: E402

GENESIS = "0" * 64
EXPORT_FORMAT = "sevenhalf-hand-export/1"


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
        self.unchecked = 0

    def line(self, ok: bool, check: str, text: str) -> bool:
        if not ok:
            self.failed += 1
        print(f"{'ok  ' if ok else 'FAIL'} {check:<12} {text}")
        return ok

    def note(self, check: str, text: str) -> None:
        """Something that could not be checked: said, not counted as passed."""
        self.unchecked += 1
        print(f"--   {check:<12} {text}")


# -- which public keys to believe ------------------------------------------------------------------------------


def key_id_of(raw: bytes) -> str:
    """API.md: the first 16 hex of sha256 of the 32 raw bytes."""
    return hashlib.sha256(raw).hexdigest()[:16]


def is_key_id(name: str) -> bool:
    """Whether ``name`` has the form of a derived key id (16 lowercase hex), not of a name a casino configured."""
    return len(name) == 16 and all(c in "0123456789abcdef" for c in name)


def fingerprint(raw: bytes) -> str:
    """sha256 of the raw key, in hex groups of four: what to compare with a fingerprint published elsewhere."""
    digest = hashlib.sha256(raw).hexdigest()
    return " ".join(digest[i : i + 4] for i in range(0, len(digest), 4))


def parse_public_key(text: str) -> tuple[str | None, bytes]:
    """``[key_id:]base64`` (or 64 hex characters) of an Ed25519 public key."""
    key_id, _, encoded = text.rpartition(":") if ":" in text else ("", "", text)
    encoded = encoded.strip()
    try:
        raw = bytes.fromhex(encoded) if len(encoded) == 64 else base64.b64decode(encoded, validate=True)
    except ValueError:
        raise ValueError(f"--public-key {text!r} is neither base64 nor hex") from None
    if len(raw) != 32:
        raise ValueError(f"--public-key {text!r} is not 32 bytes")
    return key_id or None, raw


def default_pin_file() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "sevenhalf" / "pinned-keys.json"


def trusted_keys(
    report: Report, offered: list[dict[str, Any]], given: list[str], pin_file: Path | None, casino: str
) -> dict[str, bytes]:
    """The keys the checkpoints are checked with: the user's (``--public-key``), else those pinned for ``casino``
    at the first use (the keys offered that first time, fingerprints printed). A key offered now that was not
    pinned is not believed: a casino that changes its key must be asked for it by another way."""
    offered_raw = {str(k["key_id"]): base64.b64decode(k["public_key"]) for k in offered}
    if given:
        keys: dict[str, bytes] = {}
        for text in given:
            key_id, raw = parse_public_key(text)
            names = list(dict.fromkeys([key_id_of(raw), *([key_id] if key_id else [])]))
            for name in names:
                keys[name] = raw
            print(f"--   key          yours: {', '.join(names)}, fingerprint {fingerprint(raw)}")
        return keys
    if pin_file is None:
        report.line(False, "key", "no --public-key and no pin file: nothing to check the signatures with")
        return {}
    pins: dict[str, dict[str, str]] = {}
    if pin_file.exists():
        pins = json.loads(pin_file.read_text())
    pinned = pins.get(casino)
    if pinned is None:
        pins[casino] = {key_id: base64.b64encode(raw).decode() for key_id, raw in offered_raw.items()}
        pin_file.parent.mkdir(parents=True, exist_ok=True)
        pin_file.write_text(json.dumps(pins, indent=2, sort_keys=True))
        for key_id, raw in offered_raw.items():
            report.note(
                "key",
                f"pinned on first use for {casino!r}: {key_id}, fingerprint {fingerprint(raw)} "
                f"(compare it with one the casino publishes elsewhere; kept in {pin_file})",
            )
        return {**offered_raw, **{key_id_of(raw): raw for raw in offered_raw.values()}}
    keys = {key_id: base64.b64decode(encoded) for key_id, encoded in pinned.items()}
    keys |= {key_id_of(raw): raw for raw in list(keys.values())}
    for key_id, raw in offered_raw.items():
        if keys.get(key_id) != raw:
            report.note(
                "key",
                f"{key_id} (fingerprint {fingerprint(raw)}) is offered but not pinned for {casino!r}: not believed",
            )
    print(f"--   key          pinned for {casino!r}: {', '.join(sorted(keys))} (from {pin_file})")
    return keys


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


def _check_ledger(report: Report, history: dict[str, Any], settled: dict[str, Any]) -> None:
    """Each transaction balances; each player's postings add up to his net in the results (a player banker's to
    the banker's net), the house bankroll's to a house banker's net, and the table's escrow to zero."""
    problems: list[str] = []
    totals: dict[str, int] = {}
    for tx in history.get("ledger") or []:
        amounts = [int(p["amount"]) for p in tx["postings"]]
        if sum(amounts) != 0:
            problems.append(f"transaction {tx['transaction_id']} does not balance ({sum(amounts)})")
        for posting in tx["postings"]:
            totals[posting["account"]] = totals.get(posting["account"], 0) + int(posting["amount"])
    expected: dict[str, int] = {}
    by_seat = {p["seat"]: p["username"] for p in history["participants"]}
    for r in history["results"]:
        account = f"player:{by_seat.get(r['seat'])}"
        expected[account] = expected.get(account, 0) + int(r["net"])
    banker = history["banker"]
    banker_net = settled.get("banker_net")
    if banker_net is not None:
        if banker["username"] is not None:
            account = f"player:{banker['username']}"
            expected[account] = expected.get(account, 0) + int(banker_net)
        else:
            expected["house:bankroll*"] = int(banker_net)
    house = sum(v for k, v in totals.items() if k == "house:bankroll" or k.startswith("house:bankroll:"))
    for account, net in sorted(expected.items()):
        moved = house if account == "house:bankroll*" else totals.get(account, 0)
        if moved != net:
            problems.append(f"{account} moved {moved} in the ledger, its net in the results is {net}")
    for account, moved in sorted(totals.items()):
        if account.startswith("escrow:") and moved != 0:
            problems.append(f"{account} is left with {moved} after the hand")
        elif account.startswith("player:") and account not in expected and moved != 0:
            problems.append(f"{account} moved {moved} but has no result in the hand")
    transactions = len(history.get("ledger") or [])
    report.line(not problems, "ledger", "; ".join(problems) or f"{transactions} transactions balance the results")


def _check_chain(report: Report, table_id: int, events: list[dict[str, Any]]) -> dict[int, str]:
    """Recompute every event's hash from the event as served and check the links; the seq -> hash of the linked
    events (the checkpoints are compared with these)."""
    problems: list[str] = []
    linked: dict[int, str] = {}
    altered = False
    recomputed = old = 0
    previous: dict[str, Any] | None = None
    seen_form2 = False
    for e in events:
        if "hash" not in e or "prev_hash" not in e:
            problems.append(f"seq {e['seq']} is served without its hash")
            break
        if previous is None and e["seq"] == 1 and e["prev_hash"] != GENESIS:
            problems.append("the first event does not chain from the genesis hash")
        if previous is not None and (e["seq"] != previous["seq"] + 1 or e["prev_hash"] != previous["hash"]):
            problems.append(f"broken link at seq {e['seq']}")
            break
        digest = served_hash(table_id, e)
        if digest is None:
            if seen_form2:
                problems.append(f"seq {e['seq']} claims the old hash form after events of the new one")
                break
            old += 1
        else:
            seen_form2 = True
            recomputed += 1
            if digest != e["hash"] and not altered:
                altered = True
                problems.append(
                    f"seq {e['seq']} ({e['type']}): its content does not give its hash (the event was altered)"
                )
        linked[e["seq"]] = e["hash"]
        previous = e
    first, last = (events[0]["seq"], events[-1]["seq"]) if events else (0, 0)
    text = f"seq {first}-{last}: {recomputed} hashes recomputed from the content, links unbroken"
    report.line(not problems, "chain", "; ".join(problems) or text)
    if old and not problems:
        report.note("chain", f"{old} events of the old hash form (before API v1.2): linked, not recomputable")
    return linked


def _check_checkpoints(
    report: Report,
    table_id: int,
    checkpoints: list[dict[str, Any]],
    keys: dict[str, bytes],
    chain: dict[int, str],
    closed_seq: int,
) -> None:
    """Each checkpoint's signature with the trusted key its ``key_id`` names (the first 16 hex of sha256 of the raw
    key). A checkpoint signed before key ids were derived names its key by the casino's own name for it: any key
    you trust that verifies its signature will do (the signature, not the name, is the proof)."""
    problems = []
    trusted = list(dict.fromkeys(keys.values()))
    for c in checkpoints:
        message = f"{table_id}:{c['version']}:{c['hash']}".encode()
        named = keys.get(c["key_id"])
        candidates = [named] if named is not None else [] if is_key_id(c["key_id"]) else trusted
        if not candidates:
            problems.append(f"the checkpoint at version {c['version']} names key {c['key_id']}, which you do not trust")
            break
        signature = base64.b64decode(c["signature"])
        if not any(ed25519.verify(key, message, signature) for key in candidates):
            problems.append(
                f"the checkpoint at version {c['version']} is not signed by key {c['key_id']}"
                if named is not None
                else f"the checkpoint at version {c['version']} names key {c['key_id']!r} (a name from before key ids "
                "were derived), and no key you trust signed it"
            )
            break
        shown = chain.get(c["version"])
        if shown is not None and shown != c["hash"]:
            problems.append(
                f"the chain no longer matches the checkpoint signed at version {c['version']}: "
                f"the events show {shown}, {c['hash']} was signed (history rewritten)"
            )
            break
    covering = next((c for c in checkpoints if c["version"] >= closed_seq and c["version"] in chain), None)
    if covering is None:
        problems.append(f"no signed checkpoint of the checked chain covers the hand's end (seq {closed_seq})")
    covered = f"version {covering['version']} covers this hand" if covering else ""
    summary = f"{len(checkpoints)} signatures verify (Ed25519 in pure Python); {covered}"
    report.line(not problems, "checkpoint", "; ".join(problems) or summary)


def _check_seed_timing(report: Report, history: dict[str, Any], committed_at: int | None) -> None:
    """Whether each participant's client seed was set after the hand's commitment was published."""
    for p in history["participants"]:
        if p["role"] == "banker" and p["seat"] is None:
            continue  # the house has no client seed
        who = f"seat {p['seat']} ({p['username']})"
        set_at = p.get("client_seed_set_at")
        if set_at is None or committed_at is None:
            report.note("seed timing", f"{who}: the casino does not say when his client seed was set")
        elif set_at > committed_at:
            report.line(
                True,
                "seed timing",
                f"{who}: client seed set at seq {set_at}, after the commitment (seq {committed_at}): "
                "the deck was not chosen against it",
            )
        else:
            report.note(
                "seed timing",
                f"{who}: client seed set at seq {set_at}, before the commitment (seq {committed_at}): for this "
                "hand he trusts the operator not to have chosen the server seed against it",
            )


def _print_game(report: Report, game: dict[str, Any], shown: dict[str, Any]) -> None:
    """Which rules the hand was played under (``game``: its id, the released version and the digest of the rules
    core, recorded when it opened), against the rules core this verifier runs (the totals and results below are
    re-decided by it)."""
    if game != shown:
        report.line(False, "game", f"the export says {game}, the hand's history {shown}")
    name, version, digest = game.get("id"), game.get("version"), game.get("rules_sha256")
    mine = rules_sha256(ROOT)
    if version is None or digest is None:
        report.note("game", f"{name}: the casino does not say which rules dealt this hand (opened before it did)")
    elif digest == mine:
        print(f"--   game         {name} {version}, rules sha256 {digest}: the rules core this verifier runs")
    else:
        report.note(
            "game",
            f"{name} {version}, rules sha256 {digest}; this verifier runs other rules ({mine}): the totals and results "
            "are re-decided by those (run the verifier of the casino's release for an exact match)",
        )


def check_export(
    export: dict[str, Any],
    *,
    keys: dict[str, bytes],
    report: Report,
    feed: list[dict[str, Any]] | None = None,
    all_checkpoints: list[dict[str, Any]] | None = None,
    me: dict[str, Any] | None = None,
) -> int:
    """Every check of one hand from its export (``feed``, ``all_checkpoints`` and ``me``: what a live server
    adds). Returns the exit status."""
    if export.get("format") != EXPORT_FORMAT:
        report.line(False, "format", f"not a hand export ({export.get('format')!r}, expected {EXPORT_FORMAT!r})")
        return 1
    history = export["hand"]
    events = sorted(export["events"], key=lambda e: e["seq"])
    table_id, number = history["table"], history["number"]
    who = f"; checked as {me['username']}" if me else ""
    print(f"hand {history['id']}: table {table_id}, hand #{number}, {history['status']}{who}")
    _print_game(report, export.get("game") or {}, history.get("game") or {})
    if history["status"] not in ("settled", "abandoned"):
        report.line(False, "status", f"the hand is {history['status']}: only an ended hand can be checked")
        return 1
    seeds_source = feed if feed is not None else events
    opened = next((e for e in events if e["type"] == "HandOpened" and e["data"]["number"] == number), None)
    closed = next(
        (e for e in events if e["type"] in ("HandSettled", "HandAbandoned") and e["data"]["number"] == number), None
    )
    if opened is None or closed is None:
        report.line(False, "events", f"the events do not hold hand #{number} from its opening to its end")
        return 1
    deals = sorted(history["deals"], key=lambda d: d["seq"])
    first_card = deals[0]["seq"] if deals else closed["seq"]
    seed, commitment, client_seed = history["server_seed"], history["seed_commitment"], history["client_seed"]

    # the revealed seed against the commitment
    actual = hashlib.sha256(bytes.fromhex(seed)).hexdigest() if seed else None
    if seed or history["status"] == "settled":
        report.line(actual == commitment, "commitment", f"sha256(server_seed) = {actual}, committed {commitment}")
    else:
        report.line(
            False,
            "commitment",
            f"the hand was abandoned ({closed['data'].get('reason')}) and its server seed never revealed: the "
            f"casino could not (or would not) deal from the seed it committed ({commitment})",
        )

    # one commitment per hand: a committed seed is never replaced (API.md v1.2)
    commitments = [e for e in events if e["type"] == "SeedCommitted" and e["data"]["number"] == number]
    if len(commitments) > 1:
        report.line(
            False,
            "commitment",
            f"hand #{number}'s seed was committed {len(commitments)} times (seq "
            f"{', '.join(str(e['seq']) for e in commitments)}): a committed seed is never replaced",
        )

    # the commitment was public before the first card
    published = [
        e for e in events if e["type"] == "SeedCommitted" and e["data"]["number"] == number and e["seq"] < first_card
    ]
    committed_at: int | None = None
    if published:
        last = published[-1]
        committed_at = published[0]["seq"]
        stated = history.get("seed_committed_at")
        report.line(
            last["data"]["seed_commitment"] == commitment and stated in (None, committed_at),
            "published",
            f"committed at seq {committed_at}, first card at seq {first_card}"
            + ("" if stated in (None, committed_at) else f"; the history says seq {stated}"),
        )
    elif opened["data"].get("server_seed") or opened["data"].get("client_seed"):
        report.line(
            opened["data"]["seed_commitment"] == commitment and opened["seq"] < first_card,
            "published",
            f"a hand of the old form: committed as it opened (seq {opened['seq']}), after its client seed was fixed",
        )
    else:
        report.line(False, "published", f"no commitment of hand #{number} in the events before seq {first_card}")

    # the client seed is the participants' seeds of that moment, in seat order
    fixed_at = first_card if not opened["data"].get("client_seed") else opened["seq"]
    seeds, seats = _seeds_at(seeds_source, fixed_at)
    by_seat = {p["seat"]: p.get("client_seed") for p in history["participants"]}
    skipped = {
        e["data"]["seat"] for e in seeds_source if e["type"] == "PunterSkipped" and opened["seq"] < e["seq"] < fixed_at
    }
    members = sorted(
        {s for s in opened["data"]["entrants"] if s not in skipped}
        | ({history["banker"]["seat"]} if history["banker"]["seat"] is not None else set())
    )
    parts = [by_seat.get(s) or seeds.get(seats.get(s, ""), "?") for s in members]
    expected = ":".join(parts)
    if client_seed is None and not deals:
        report.note("client seed", "no card was dealt: the hand's client seed was never fixed, no deck was shuffled")
    elif "?" in parts:
        report.note("client seed", f"{client_seed!r}: the events given do not show every participant's seed")
    elif me is not None and str(me["id"]) in seats.values():
        mine = seeds.get(str(me["id"]))
        report.line(
            expected == client_seed and mine in (client_seed or "").split(":"),
            "client seed",
            f"{client_seed!r} holds yours ({mine!r}) and is the participants' seeds in seat order ({expected!r})",
        )
    else:
        report.line(
            expected == client_seed,
            "client seed",
            f"{client_seed!r} is the participants' seeds in seat order ({expected!r})",
        )
    _check_seed_timing(report, history, committed_at if committed_at is not None else history.get("seed_committed_at"))
    if history["status"] == "abandoned":  # no deck, no results: its chips, its chain and its checkpoints
        if deals:
            report.line(False, "deals", f"the hand was abandoned, yet {len(deals)} cards were dealt")
        _check_ledger(report, history, closed["data"])
        _check_chain_and_checkpoints(report, export, events, keys, closed["seq"], feed, all_checkpoints)
        return _summary(report)

    # the deck and every card dealt, in order
    deck = shuffle_deck(bytes.fromhex(seed), client_seed or "", number) if seed else []
    report.line(deck == history["deck"], "deck", " ".join(deck))
    wrong = [(i, d) for i, d in enumerate(deals) if i >= len(deck) or d["card"] != deck[i]]
    if wrong:
        i, deal = wrong[0]
        expected_card = deck[i] if i < len(deck) else "nothing"
        report.line(False, "deals", f"seq {deal['seq']} dealt {deal['card']}, the deck has {expected_card} there")
    else:
        report.line(True, "deals", f"{len(deals)} cards, each the next of the deck")

    # the events' cards (the export's and, live, the feed's) against the history and the deck
    history_cards = {d["seq"]: d["card"] for d in deals}
    feed_problems = []
    shown = 0
    for source, rows in (("export", events), ("feed", feed or [])):
        for e in rows:
            data = e["data"]
            if e["type"] != "CardDealt" or data.get("number") != number:
                continue
            index, card = data.get("deck_index"), data.get("card")
            if card is None:
                feed_problems.append(f"{source} seq {e['seq']}: the card is still hidden after the hand ended")
            elif card != history_cards.get(e["seq"]):
                feed_problems.append(f"{source} seq {e['seq']}: {card}, the history says {history_cards.get(e['seq'])}")
            elif index is None or not 0 <= index < len(deck) or deck[index] != card:
                feed_problems.append(f"{source} seq {e['seq']}: {card} is not the deck's card at index {index}")
            shown += 1
    report.line(
        not feed_problems and shown >= len(deals),
        "feed",
        "; ".join(feed_problems[:3]) or f"{shown} dealt cards in the events, each the history's and the deck's",
    )

    # totals and results, re-decided by the rules core from the cards and the bets
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
    event_results = {(r.get("seat"), r.get("hand")): r for r in settled.get("results") or []}
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
        shown_row = (r["category"], r["total_half_points"], r["outcome"], r["tie"], r["multiplier"], r["net"])
        if mine_row != shown_row:
            bad_results.append(f"seat {r['seat']} hand {r['hand']}: shown {shown_row}, re-decided {mine_row}")
        recorded = event_results.get((r["seat"], r["hand"]))
        if recorded is not None and recorded.get("net") != r["net"]:
            bad_results.append(
                f"seat {r['seat']} hand {r['hand']}: the settlement event says net {recorded.get('net')}"
            )
    banker_net = settled.get("banker_net")
    if banker_net is not None and banker_net != -sum(r["net"] for r in history["results"]):
        bad_results.append(f"the banker's net {banker_net} is not minus the punters' nets")
    report.line(not bad_results, "results", "; ".join(bad_results) or f"{len(history['results'])} punter hands")

    _check_ledger(report, history, settled)
    _check_chain_and_checkpoints(report, export, events, keys, closed["seq"], feed, all_checkpoints)
    return _summary(report)


def _check_chain_and_checkpoints(
    report: Report,
    export: dict[str, Any],
    events: list[dict[str, Any]],
    keys: dict[str, bytes],
    closed_seq: int,
    feed: list[dict[str, Any]] | None,
    all_checkpoints: list[dict[str, Any]] | None,
) -> None:
    """The chain, recomputed from the content, and the signed checkpoints."""
    history = export["hand"]
    table_id = history["table"]
    chain = _check_chain(report, table_id, events)
    by_seq = {e["seq"]: e.get("hash") for e in events}
    unlike = [
        row["seq"]
        for row in [*history.get("deals", []), *history.get("actions", [])]
        if "hash" in row and by_seq.get(row["seq"], row["hash"]) != row["hash"]
    ]
    if unlike:
        report.line(False, "chain", f"the history and the events show different hashes at seq {unlike[0]}")
    if feed is not None:  # live: the whole feed's chain up to the latest checkpoint, and the same hashes
        feed_chain = _check_chain(report, table_id, [e for e in feed if "hash" in e])
        differ = [seq for seq, digest in chain.items() if feed_chain.get(seq, digest) != digest]
        if differ:
            report.line(False, "chain", f"the feed and the export show different hashes from seq {differ[0]}")
        chain = {**feed_chain, **chain}
    checkpoints = export.get("checkpoints") or []
    if all_checkpoints is not None:
        known = {c["version"] for c in checkpoints}
        checkpoints = sorted(
            checkpoints + [c for c in all_checkpoints if c["version"] not in known], key=lambda c: c["version"]
        )
    _check_checkpoints(report, table_id, checkpoints, keys, chain, closed_seq)


def _summary(report: Report) -> int:
    if report.failed:
        print(f"{report.failed} check(s) FAILED")
    elif report.unchecked:
        print(f"every check passed; {report.unchecked} thing(s) could not be checked (--)")
    else:
        print("every check passed")
    return 1 if report.failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("hand", help="an export file (GET /hands/{id}/export saved), or a hand id with --url")
    parser.add_argument("--url", help="the casino's address, e.g. https://casino.example (live check)")
    parser.add_argument("--token", help="your API token (POST /api/v1/auth/token), with --url")
    parser.add_argument(
        "--public-key",
        action="append",
        default=[],
        help="a checkpoint key you trust: [key_id:]base64 (or hex) of its 32 raw bytes; repeat for several",
    )
    parser.add_argument(
        "--pin-file",
        type=Path,
        help="without --public-key: where keys are pinned on first use (default ~/.config/sevenhalf/pinned-keys.json)",
    )
    parser.add_argument("--casino", help="the name keys are pinned under (default: the --url, or 'default')")
    args = parser.parse_args(argv)
    report = Report()
    pin_file = args.pin_file
    if pin_file is None and not args.public_key:
        try:
            pin_file = default_pin_file()
        except RuntimeError:  # no home directory
            pin_file = None
    try:
        if args.url:
            if not args.token or not args.hand.isdecimal():
                parser.error("--url needs --token and a hand id")
            service = Service(args.url, args.token)
            me = service.get("/me")
            export = service.get(f"/hands/{int(args.hand)}/export")
            table_id = export["hand"]["table"]
            feed = service.events(table_id)
            all_checkpoints = service.pages(f"/tables/{table_id}/checkpoints")
            offered = service.get("/fairness/public-key")["keys"]
            casino = args.casino or args.url.rstrip("/")
        else:
            export = json.loads(Path(args.hand).read_text())
            me, feed, all_checkpoints = None, None, None
            offered = export.get("public_keys") or []
            casino = args.casino or "default"
        keys = trusted_keys(report, offered, args.public_key, pin_file, casino)
    except urllib.error.HTTPError as exc:
        print(f"FAIL service     cannot read the hand: {exc} {exc.read()[:200]!r}")
        return 2
    except (urllib.error.URLError, OSError, ValueError, KeyError) as exc:
        print(f"FAIL read        cannot read the hand: {exc}")
        return 2
    try:
        return check_export(export, keys=keys, report=report, feed=feed, all_checkpoints=all_checkpoints, me=me)
    except (ValueError, KeyError, TypeError) as exc:
        print(f"FAIL format      the export is malformed: {exc!r}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
