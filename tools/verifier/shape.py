"""What an export file must look like before anything in it is read (API.md v1.3: a hostile file gets a one-line
failure, never a traceback, in time linear in its size): every field the checks read, with its type.

A spec is a type (or a tuple of types: any of them), ``[spec]`` (a list of it), ``{key: spec}`` (an object with
those keys; a key ending in ``?`` may be missing) or :data:`ANY`. Nothing here recurses into what the checks do
not read, so a deeply nested value where none is read costs nothing but its parse.
"""

from __future__ import annotations

import json
from typing import Any

ANY = object()
NUM = int  # bool is refused where an int is wanted (below)
OPT_STR = (str, type(None))
OPT_INT = (int, type(None))

EVENT = {"seq": NUM, "type": str, "data": dict, "at": str, "hash?": str, "prev_hash?": str, "hash_form?": NUM,
         "private_sha256?": str}  # fmt: skip
CHECKPOINT = {"version": NUM, "hash": str, "signature": str, "key_id": str, "hash_forms?": OPT_STR,
              "facts_sha256?": OPT_STR, "facts?": dict}  # fmt: skip
RESULT = {"seat": NUM, "hand": NUM, "bet": NUM, "category": str, "total_half_points": NUM, "outcome": str,
          "tie": bool, "multiplier": NUM, "net": NUM}  # fmt: skip
HISTORY = {
    "id": NUM, "table": NUM, "number": NUM, "status": str, "rules": dict, "seed_commitment": OPT_STR,
    "seed_committed_at?": OPT_INT, "server_seed": OPT_STR, "client_seed": OPT_STR, "deck": (list, type(None)),
    "banker": {"seat": OPT_INT, "username": OPT_STR},
    "participants": [{"seat": OPT_INT, "username": OPT_STR, "role": str, "client_seed?": OPT_STR,
                      "client_seed_set_at?": OPT_INT,
                      "hands": [{"index": NUM, "bet": OPT_INT, "cards": [str], "total_half_points": OPT_INT}]}],
    "deals": [{"seq": NUM, "to_seat": OPT_INT, "hand": OPT_INT, "card": OPT_STR, "face_up": bool}],
    "results": [RESULT],
    "ledger?": ([{"transaction_id": ANY, "postings": [{"account": str, "amount": NUM}]}], type(None)),
    "game?": (dict, type(None)),
}  # fmt: skip
EXPORT = {"format": str, "hand": HISTORY, "events": [EVENT], "checkpoints": [CHECKPOINT],
          "public_keys?": list, "game?": (dict, type(None))}  # fmt: skip

#: the data the checks read, by event type
DATA = {
    "SeatTaken": {"seat": NUM, "player_id": str, "client_seed": str},
    "ClientSeedSet": {"seat": NUM, "player_id": str, "client_seed": str},
    "SeatLeft": {"seat": NUM},
    "SeedCommitted": {"number": NUM, "seed_commitment": str},
    "ClientSeedFixed": {"number": NUM, "client_seed": str},
    "HandOpened": {"number": NUM, "banker_seat": OPT_INT, "seed_commitment": str, "server_seed?": OPT_STR,
                   "client_seed?": OPT_STR, "entrants": [NUM]},
    "PunterSkipped": {"seat": NUM},
    "CardDealt": {"number": NUM, "seat": OPT_INT, "hand": OPT_INT, "banker": bool, "card": OPT_STR, "face_up": bool,
                  "deck_index": OPT_INT},
    "BetPlaced": {"seat": NUM, "hand": NUM, "amount": NUM},
    "StakeRaised": {"seat": NUM, "hand": NUM, "amount": NUM},
    "HandSplit": {"seat": NUM, "amount": NUM},
    "HandSettled": {"number": NUM, "results": [RESULT], "banker_net": NUM, "banker_category": OPT_STR,
                    "server_seed?": OPT_STR},
    "HandAbandoned": {"number": NUM, "server_seed?": OPT_STR},
}  # fmt: skip


class Malformed(ValueError):
    """The file is not an export the checks can read: the one-line reason."""


def check_shape(export: Any) -> None:
    """Raise :class:`Malformed` naming the first field of ``export`` that is missing or of the wrong type."""
    _check(export, EXPORT, "export")
    for i, event in enumerate(export["events"]):
        spec = DATA.get(event["type"])
        if spec is not None:
            _check(event["data"], spec, f"events[{i}].data ({event['type']})")


def _check(value: Any, spec: Any, where: str) -> None:
    if spec is ANY:
        return
    if isinstance(spec, dict):
        if not isinstance(value, dict):
            raise Malformed(f"{where} is not an object")
        for key, inner in spec.items():
            optional = key.endswith("?")
            name = key.rstrip("?")
            if name not in value:
                if optional:
                    continue
                raise Malformed(f"{where} has no {name!r}")
            _check(value[name], inner, f"{where}.{name}")
        return
    if isinstance(spec, list):
        if not isinstance(value, list):
            raise Malformed(f"{where} is not a list")
        for i, item in enumerate(value):
            _check(item, spec[0], f"{where}[{i}]")
        return
    kinds = spec if isinstance(spec, tuple) else (spec,)
    for kind in kinds:
        if isinstance(kind, (list, dict)):
            try:
                _check(value, kind, where)
                return
            except Malformed:
                continue
        elif isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
            return
    raise Malformed(f"{where} has the wrong type ({type(value).__name__})")


def parse_json(raw: bytes) -> Any:
    """The JSON document in ``raw``; :class:`Malformed` for anything that is not one (or nested past what the
    parser takes)."""
    try:
        return json.loads(raw)
    except RecursionError:
        raise Malformed("the file is nested too deeply to be an export") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise Malformed(f"the file is not JSON ({' '.join(str(exc).split())[:120]})") from None
