"""The canonical form an event's chain hash covers (docs/fairness.md "The hash chain"), and what a signed
checkpoint signs, standard library only.

Three forms exist. Form 1 (events recorded before API v1.2) hashes the whole stored event, its private metadata
included, so nobody outside the server can recompute it. Forms 2 (API v1.2) and 3 (v1.3, ``metadata["hash_form"]``
names it) hash only what the event shows once its hand has ended, plus one digest of what it never shows; form 3
also hashes its own form, so an event's form is part of what its hash covers::

    hash = sha256(prev_hash + canonical_json({
        "stream": table id, "version": seq, "type": type,
        "data": public data (below), "private_sha256": sha256 hex of the private part (below),
        "recorded_at": "YYYY-MM-DDTHH:MM:SS.ffffffZ" (UTC),
        "hash_form": 3,                                   (form 3 only)
    }))

- *public data*: the event's data without its sealed fields (``sealed_seed``, ``sealed_card``), and a face-down
  ``CardDealt`` with ``card`` null: the card itself is never hashed in clear, so no hash can be matched against
  the 40 possible cards. It is bound by ``deck_index`` (hashed) and by the server seed revealed at the end.
- *private part*: ``{"metadata": the stored metadata, "sealed": {sealed field: value}}``. It always holds a fresh
  random value (the command's 256-bit entropy, or an AES-GCM nonce), so its digest cannot be guessed either.

The server hashes with :func:`event_hash` on the stored event; ``tools/verify_hand.py`` recomputes the same hash
from an event as served (with :func:`served_hash`), where a face-down card may be shown: it is nulled again.

A checkpoint (API.md v1.3) signs :func:`checkpoint_message`: the version and hash it covers, the forms of the
stream's events up to it (:func:`forms_text`: where each form began) and the sha256 of the table's facts at that
version (:func:`facts_sha256`: the table card and who sits where with which client seed, set when), so a verifier
reads both from a signature, never from the file that brings them.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

HASH_FORM = 3
#: the forms anyone can recompute from an event as served (form 1 covers the unpublished metadata)
SERVED_FORMS = (2, 3)
SEALED_FIELDS = ("sealed_seed", "sealed_card")


def canonical_json(value: Any) -> bytes:
    """The canonical bytes that are hashed: sorted keys, compact separators, UTF-8."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


_UTC_TIME = re.compile(r"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?(?:Z|\+00:00)")


def canonical_time(text: str) -> str:
    """An event's time (ISO 8601 in UTC, as served: ``Z`` or ``+00:00``, any number of fraction digits up to
    six) as form 2 hashes it: ``YYYY-MM-DDTHH:MM:SS.ffffffZ``. Raises ValueError for anything else."""
    match = _UTC_TIME.fullmatch(text)
    if match is None:
        raise ValueError(f"not a UTC time: {text!r}")
    return f"{match.group(1)}.{(match.group(2) or '').ljust(6, '0')}Z"


def stored_public_data(data: Mapping[str, Any]) -> dict[str, Any]:
    """What form 2 hashes of an event's stored data: everything but its sealed fields (a face-down card is
    stored with ``card`` null, so a card written there later changes the hash)."""
    return {key: value for key, value in data.items() if key not in SEALED_FIELDS}


def served_public_data(type_name: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """The same from an event as served once its hand has ended, where a face-down card is shown: nulled again."""
    shown = stored_public_data(data)
    if type_name == "CardDealt" and not shown.get("face_up"):
        shown["card"] = None
    return shown


def private_sha256(data: Mapping[str, Any], metadata: Mapping[str, Any]) -> str:
    """The digest of what an event never shows: its metadata and its sealed fields."""
    sealed = {key: data[key] for key in SEALED_FIELDS if key in data}
    return hashlib.sha256(canonical_json({"metadata": metadata, "sealed": sealed})).hexdigest()


def form2_hash(
    *,
    prev_hash: str,
    stream: int,
    version: int,
    type_name: str,
    data: Mapping[str, Any],
    private: str,
    at: str,
    form: int = 2,
) -> str:
    """The hash of an event in form 2 or 3 (``form``) given its public data (:func:`stored_public_data` or
    :func:`served_public_data`), its private digest and its canonical time."""
    content: dict[str, Any] = {
        "stream": stream,
        "version": version,
        "type": type_name,
        "data": dict(data),
        "private_sha256": private,
        "recorded_at": at,
    }
    if form >= 3:
        content["hash_form"] = form
    return hashlib.sha256(prev_hash.encode() + canonical_json(content)).hexdigest()


def form1_hash(
    *, prev_hash: str, stream: int, version: int, type_name: str, data: Any, metadata: Any, recorded_at: str
) -> str:
    """Form 1's hash (events recorded before v1.2): the whole stored event, metadata included; ``recorded_at`` is
    the time's ``isoformat()``."""
    content = canonical_json(
        {
            "stream": stream,
            "version": version,
            "type": type_name,
            "data": data,
            "metadata": metadata,
            "recorded_at": recorded_at,
        }
    )
    return hashlib.sha256(prev_hash.encode() + content).hexdigest()


def hash_form(metadata: Mapping[str, Any]) -> int:
    """Which form an event's hash has (1 unless its metadata names a later one)."""
    form = metadata.get("hash_form")
    return form if form in SERVED_FORMS else 1


def served_hash(table_id: int, event: Mapping[str, Any]) -> str | None:
    """The hash of an event of form 2 or 3 exactly as a history, a feed or an export serves it (``seq``,
    ``type``, ``data``, ``at``, ``prev_hash``, ``private_sha256``, ``hash_form``); None for a form 1 event (not
    recomputable outside)."""
    form = event.get("hash_form")
    if form not in SERVED_FORMS:
        return None
    return form2_hash(
        prev_hash=str(event["prev_hash"]),
        stream=table_id,
        version=int(event["seq"]),
        type_name=str(event["type"]),
        data=served_public_data(str(event["type"]), event["data"]),
        private=str(event["private_sha256"]),
        at=canonical_time(str(event["at"])),
        form=int(form),
    )


# -- what a checkpoint signs (API.md v1.3) ---------------------------------------------------------------------


def forms_text(starts: Sequence[tuple[int, int]]) -> str:
    """The forms of a stream's events up to a checkpoint as it signs them: ``"1@1,2@120,3@480"``, each form and
    the version of the first event of a run in that form, in order."""
    return ",".join(f"{form}@{version}" for form, version in starts)


def parse_forms(text: str) -> list[tuple[int, int]]:
    """The (form, first version) runs of :func:`forms_text`; raises ValueError for anything else."""
    runs: list[tuple[int, int]] = []
    for part in text.split(","):
        form, at, version = part.partition("@")
        if not (at and form.isdecimal() and version.isdecimal() and len(form) < 3 and len(version) < 12):
            raise ValueError(f"not a form schedule: {text[:80]!r}")
        if runs and int(version) <= runs[-1][1]:
            raise ValueError(f"a form schedule out of order: {text[:80]!r}")
        runs.append((int(form), int(version)))
    return runs


def add_forms(starts: Sequence[tuple[int, int]], forms: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """``starts`` (:func:`parse_forms`) followed by the (version, form) of later events, in version order."""
    runs = list(starts)
    for version, form in forms:
        if not runs or runs[-1][0] != form:
            runs.append((form, version))
    return runs


def form_at(starts: Sequence[tuple[int, int]], version: int) -> int | None:
    """The form the schedule ``starts`` gives the event at ``version`` (None: before its first run)."""
    found = None
    for form, first in starts:
        if first > version:
            break
        found = form
    return found


def facts_sha256(facts: Mapping[str, Any]) -> str:
    """The digest of a table's facts at a checkpoint (its table card and its seats), as the checkpoint signs it."""
    return hashlib.sha256(canonical_json(facts)).hexdigest()


def checkpoint_message(table_id: int, version: int, chain_hash: str, forms: str = "", facts: str = "") -> bytes:
    """What a checkpoint signs: ``"{table}:{version}:{hash}"`` (API.md), and since v1.3 ``":{forms}:{facts}"``
    after it (:func:`forms_text`, :func:`facts_sha256`). A checkpoint signed before names neither."""
    tail = f":{forms}:{facts}" if forms or facts else ""
    return f"{table_id}:{version}:{chain_hash}{tail}".encode()
