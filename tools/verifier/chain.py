"""The ``chain`` and ``checkpoint`` checks: every event's hash recomputed from the event as served, in the hash form
the signed checkpoints pin for it (API.md v1.3), the links between them, and the checkpoints (verified up front,
``verifier.signed``) against the chain."""

from __future__ import annotations

from typing import Any

from gamemath.chainhash import SERVED_FORMS, served_hash
from verifier.report import Report
from verifier.signed import Signatures

GENESIS = "0" * 64


def check_chain_and_checkpoints(
    report: Report,
    table_id: int,
    events: list[dict[str, Any]],
    signatures: Signatures,
    closed_seq: int,
    feed: list[dict[str, Any]] | None,
) -> None:
    """The chain, recomputed from the content in the signed forms, and the signed checkpoints against it."""
    chain = _check_chain(report, table_id, events, signatures)
    if feed is not None:  # live: the whole feed's chain up to the latest checkpoint, and the same hashes
        feed_chain = _check_chain(report, table_id, [e for e in feed if "hash" in e], signatures, check_forms=False)
        differ = [seq for seq, digest in chain.items() if feed_chain.get(seq, digest) != digest]
        if differ:
            report.line(False, "chain", f"the feed and the export show different hashes from seq {differ[0]}")
        chain = {**feed_chain, **chain}
    check_checkpoints(report, signatures, chain, closed_seq)


def _check_chain(
    report: Report, table_id: int, events: list[dict[str, Any]], signatures: Signatures, *, check_forms: bool = True
) -> dict[int, str]:
    """Recompute every event's hash from the event as served and check the links and each event's form against the
    one the checkpoints sign for it; the seq -> hash of the linked events (the checkpoints are compared with
    these)."""
    problems: list[str] = []
    linked: dict[int, str] = {}
    recomputed = old = 0
    previous: dict[str, Any] | None = None
    highest_form = 0
    altered = False
    for e in events:
        if "hash" not in e or "prev_hash" not in e:
            problems.append(f"seq {e['seq']} is served without its hash")
            break
        if previous is None and e["seq"] == 1 and e["prev_hash"] != GENESIS:
            problems.append("the first event does not chain from the genesis hash")
        if previous is not None and (e["seq"] != previous["seq"] + 1 or e["prev_hash"] != previous["hash"]):
            problems.append(f"broken link at seq {e['seq']}")
            break
        form = e.get("hash_form")
        signed = signatures.form_of(e["seq"])
        if check_forms and form is None:
            problems.append(f"seq {e['seq']} ({e['type']}) names no hash form (API.md v1.3: refused)")
            break
        if check_forms and signed is not None and form != signed:
            problems.append(
                f"seq {e['seq']} ({e['type']}) claims hash form {form}, the checkpoints sign form {signed} for it"
            )
            break
        if check_forms and isinstance(form, int) and form < highest_form:
            problems.append(f"seq {e['seq']} claims hash form {form} after events of form {highest_form}")
            break
        highest_form = max(highest_form, form if isinstance(form, int) else 0)
        if form in SERVED_FORMS:
            if "private_sha256" not in e:
                problems.append(f"seq {e['seq']} is served without its private_sha256")
                break
            recomputed += 1
            if served_hash(table_id, e) != e["hash"] and not altered:
                altered = True  # said once; the links go on, so the checkpoints are compared with what is shown
                problems.append(
                    f"seq {e['seq']} ({e['type']}): its content does not give its hash (the event was altered)"
                )
        else:
            old += 1
        linked[e["seq"]] = e["hash"]
        previous = e
    first, last = (events[0]["seq"], events[-1]["seq"]) if events else (0, 0)
    text = f"seq {first}-{last}: {recomputed} hashes recomputed from the content, links unbroken"
    if signatures.forms is not None and check_forms:
        text += ", each in the form the checkpoints sign"
    report.line(not problems, "chain", "; ".join(problems) or text)
    if old and not problems:
        report.note(
            "chain",
            f"{old} events of the old hash form (before API v1.2): linked, not recomputable"
            + ("" if signatures.forms is not None else " (no checkpoint here signs the forms: signed before v1.3)"),
        )
    return linked


def check_checkpoints(report: Report, signatures: Signatures, chain: dict[int, str], closed_seq: int) -> None:
    """The checkpoints verified with the keys you trust (``verifier.signed``) and signing the very hashes the
    chain shows at their versions; one of them covers the hand's end."""
    problems = list(signatures.problems)
    for version, c in sorted(signatures.trusted.items()):
        shown = chain.get(version)
        if shown is not None and shown != c["hash"]:
            problems.append(
                f"the chain no longer matches the checkpoint signed at version {version}: "
                f"the events show {shown}, {c['hash']} was signed (history rewritten)"
            )
            break
    covering = next((v for v in sorted(signatures.trusted) if v >= closed_seq and v in chain), None)
    if covering is None and not problems:
        problems.append(f"no signed checkpoint of the checked chain covers the hand's end (seq {closed_seq})")
    covered = f"version {covering} covers this hand" if covering is not None else ""
    summary = f"{signatures.considered} signatures verify (Ed25519 in pure Python); {covered}"
    report.line(not problems, "checkpoint", "; ".join(problems) or summary)
