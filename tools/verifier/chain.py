"""The ``chain`` and ``checkpoint`` checks: every event's hash recomputed from the event as served, the links
between them, and the Ed25519 signatures of the checkpoints against the chain."""

from __future__ import annotations

import base64
from typing import Any

import ed25519

from gamemath.chainhash import served_hash
from verifier.keys import is_key_id
from verifier.report import Report

GENESIS = "0" * 64


def check_chain_and_checkpoints(
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
    check_checkpoints(report, table_id, checkpoints, keys, chain, closed_seq)


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


def check_checkpoints(
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
