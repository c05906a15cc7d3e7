"""What the casino signed (API.md v1.3): the checkpoints that verify with a key the user trusts, the hash form
of every event they pin, and the table's facts at a checkpoint (the table card, the seats and their client seeds)
folded forward through the signed events after it. Every check that derives a result reads it from here, never
from the export's other fields (which are only compared with it).
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from typing import Any

import ed25519

from gamemath.chainhash import checkpoint_message, facts_sha256, form_at, parse_forms
from verifier.keys import is_key_id

#: a hand's export holds a few checkpoints (the one before the hand, the one covering it, the table's latest)
MAX_CHECKPOINTS = 64


@dataclass
class Signatures:
    """The checkpoints considered, which verified (by version), and what was wrong with the others."""

    trusted: dict[int, dict[str, Any]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    considered: int = 0

    @property
    def forms(self) -> tuple[int, list[tuple[int, int]]] | None:
        """(version, form runs) of the latest trusted checkpoint that signs hash forms (None: none does)."""
        signed = [c for c in self.trusted.values() if c.get("hash_forms")]
        if not signed:
            return None
        latest = max(signed, key=lambda c: c["version"])
        return latest["version"], parse_forms(latest["hash_forms"])

    def form_of(self, seq: int) -> int | None:
        """The hash form the checkpoints sign for the event at ``seq`` (None: no checkpoint that names forms
        covers it)."""
        forms = self.forms
        if forms is None or seq > forms[0]:
            return None
        return form_at(forms[1], seq)

    def facts_before(self, seq: int, first: int) -> dict[str, Any] | None:
        """The latest trusted checkpoint whose facts are signed, at a version in [``first``, ``seq``) (so the
        events after it up to ``seq`` are in the export): ``{"version", "facts"}``; None if there is none."""
        found = [c for c in self.trusted.values() if first <= c["version"] < seq and isinstance(c.get("facts"), dict)]
        if not found:
            return None
        latest = max(found, key=lambda c: c["version"])
        return {"version": latest["version"], "facts": latest["facts"]}


def verify_checkpoints(table_id: int, checkpoints: list[dict[str, Any]], keys: dict[str, bytes]) -> Signatures:
    """Every distinct checkpoint's signature with a key the user trusts (and, since v1.3, its facts against the
    digest it signs). Two different checkpoints at one version, or more than a hand's export holds, fail."""
    result = Signatures()
    by_version: dict[int, dict[str, Any]] = {}
    for c in checkpoints:
        known = by_version.get(c["version"])
        if known is None:
            by_version[c["version"]] = c
        elif _signed_part(known) != _signed_part(c):
            result.problems.append(f"two different checkpoints at version {c['version']}")
            return result
    if len(by_version) > MAX_CHECKPOINTS:
        result.problems.append(f"{len(by_version)} checkpoints: a hand's export holds a few, this is not one")
        return result
    result.considered = len(by_version)
    trusted_keys = list(dict.fromkeys(keys.values()))
    for version in sorted(by_version):
        c = by_version[version]
        problem = _one(table_id, c, keys, trusted_keys)
        if problem is not None:
            result.problems.append(problem)
            return result
        result.trusted[version] = c
    return result


def _signed_part(c: dict[str, Any]) -> tuple[Any, ...]:
    return (c["hash"], c["key_id"], c["signature"], c.get("hash_forms"), c.get("facts_sha256"))


def _one(table_id: int, c: dict[str, Any], keys: dict[str, bytes], trusted: list[bytes]) -> str | None:
    """What is wrong with checkpoint ``c`` (None: it verifies)."""
    forms, digest = c.get("hash_forms") or "", c.get("facts_sha256") or ""
    if forms:
        try:
            parse_forms(forms)
        except ValueError as exc:
            return f"the checkpoint at version {c['version']}: {exc}"
    message = checkpoint_message(table_id, c["version"], c["hash"], forms, digest)
    named = keys.get(c["key_id"])
    candidates = [named] if named is not None else [] if is_key_id(c["key_id"]) else trusted
    if not candidates:
        return f"the checkpoint at version {c['version']} names key {c['key_id']}, which you do not trust"
    try:
        signature = base64.b64decode(c["signature"], validate=True)
    except (binascii.Error, ValueError):
        return f"the checkpoint at version {c['version']} has a signature that is not base64"
    if not any(ed25519.verify(key, message, signature) for key in candidates):
        if named is not None:
            return f"the checkpoint at version {c['version']} is not signed by key {c['key_id']}"
        return (
            f"the checkpoint at version {c['version']} names key {c['key_id']!r} (a name from before key ids were "
            "derived), and no key you trust signed it"
        )
    facts = c.get("facts")
    if digest and facts is not None and facts_sha256(facts) != digest:
        return f"the checkpoint at version {c['version']} comes with facts that are not the ones it signs"
    if facts is not None and not digest:
        c.pop("facts")  # facts no signature covers: shown, never used
    return None


@dataclass
class Seat:
    """A seat as the signed facts and events say: who sits there, his client seed and when it was set."""

    player: str
    client_seed: str
    set_at: int


def seats_at(
    base: dict[str, Any] | None, events: list[dict[str, Any]], first: int, before_seq: int
) -> tuple[dict[int, Seat], bool]:
    """The seats just before ``before_seq``: the signed facts of ``base`` (``Signatures.facts_before``) with
    the events after it; without a base, only what the export's events from ``first`` show. Also whether the
    result is complete (it started from signed facts)."""
    seats: dict[int, Seat] = {}
    start = first - 1
    if base is not None:
        start = base["version"]
        for s in base["facts"].get("seats") or []:
            if isinstance(s, dict) and isinstance(s.get("seat"), int):
                seats[s["seat"]] = Seat(
                    str(s.get("player")), str(s.get("client_seed")), int(s.get("client_seed_set_at") or 0)
                )
    for e in events:
        if e["seq"] <= start:
            continue
        if e["seq"] >= before_seq:
            break
        data = e["data"]
        if e["type"] == "SeatTaken" or e["type"] == "ClientSeedSet":
            seats[data["seat"]] = Seat(data["player_id"], data["client_seed"], e["seq"])
        elif e["type"] == "SeatLeft":
            seats.pop(data["seat"], None)
    return seats, base is not None
