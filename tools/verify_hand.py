#!/usr/bin/env python3
"""Verify one hand of Seven and a Half yourself, trusting nothing the server computes.

    python tools/verify_hand.py EXPORT_FILE --public-key KEY             # offline: GET /hands/{id}/export saved
    python tools/verify_hand.py --url https://casino.example --token YOUR_TOKEN HAND_ID [--public-key KEY]
    ... [--my-seeds MY_SEEDS.json]          # the record of your client seeds the reference client lets you download

Uses only the Python standard library, the game's standard-library maths (``gamemath/``: the card codes, the
published shuffle, scoring, the rule sets and the chain hash's canonical form), the pure-Python Ed25519 check
beside this file and the checks in ``tools/verifier/`` (this file is their command line). Against a live server it
fetches the hand's export, the table's events feed and its signed checkpoints; offline it reads an export file and
fetches nothing. It checks, one line each:

Every result is derived from what a checkpoint signs (API.md v1.3): the events it covers, recomputed in the hash
form it pins for each, and the table's facts it signs (the table card, the seats and their client seeds); the
history beside them is only shown, and compared with them (``history``).

- commitment   sha256(revealed server seed) is the hand's seed commitment;
- published    that commitment was in the events before the hand's first card (and at ``seed_committed_at``);
- client seed  the hand's client seed is the participants' client seeds, joined with ':' in seat order;
- seed timing  for each participant, whether his client seed was set after the commitment was published (then the
               operator could not have chosen the deck against him) or before (he trusts the operator);
- my seeds     (``--my-seeds``) every client seed of yours the hand used is one your own record holds;
- history      the history's seeds, seats, roles, client seeds, cards, stakes and results are the signed events';
- deck         the published shuffle of (server seed, client seed, hand number) gives the deck shown;
- deals        every card dealt, in order, is the next card of that deck;
- feed         every card the events show for the hand (``CardDealt``) is the history's and the deck's;
- totals       every hand's total, from its cards, under the table's rules;
- results      every punter hand's category, outcome, multiplier and net, re-decided from the cards and bets
               by the rules core (the banker's net is minus their sum);
- ledger       every ledger transaction of the hand balances, and each party's postings add up to its net;
- chain        every event's hash recomputed from the event as served (form 2, docs/fairness.md), and the links;
- checkpoint   the checkpoints verify (Ed25519) with a key you trust (``--public-key``, or one pinned from
               ``GET /fairness/public-key`` by an earlier live check; never a key inside the export) and match
               the chain hash at their version, and one covers this hand.

A checkpoint names its key by ``key_id``, the first 16 hex of sha256 of the raw public key (one named as the casino
configured it, from before key ids were derived, is checked against every key you trust). An abandoned hand is
checked as far as it goes: a seed never revealed, or committed more than once, fails ``commitment``. It prints which
rules dealt the hand (``game``: the released version and the sha256 of the rules core, recorded when the hand
opened) and whether they are the rules core it runs itself.

Exit status 0 when every check passes, 1 when one fails or the file is not a well-formed export (one line says
why, never a traceback), 2 when the service or the file cannot be read.
See docs/fairness.md for the scheme and what each check proves.
"""

from __future__ import annotations

import argparse
import sys
import urllib.error
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the project's root: gamemath, the game's standard-library maths
sys.path.insert(0, str(Path(__file__).resolve().parent))  # tools/: ed25519 and the verifier's checks

# Only the game's standard-library maths (``gamemath/``), ``ed25519`` and ``verifier`` beside this file are imported:
# a player can run this with nothing installed and read every line it runs. The live fairness test runs this tool
# with ``python -I -S`` (no site-packages at all), so it fails if anything else gets imported.
from verifier.export import check_export  # noqa: E402 - after the paths above
from verifier.keys import default_pin_file, trusted_keys  # noqa: E402
from verifier.record import read_record  # noqa: E402
from verifier.report import Report  # noqa: E402
from verifier.service import Service  # noqa: E402
from verifier.shape import Malformed, parse_json  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    """The command line: read the hand (from the casino, or from an export file), decide which keys to trust,
    then check it. The exit status: 0 every check passed, 1 one failed, 2 the hand could not be read."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.url and (not args.token or not args.hand.isdecimal()):
        parser.error("--url needs --token and a hand id")
    report = Report()
    try:
        export, extra, offered, casino = _read_live(args) if args.url else _read_file(args)
        if args.my_seeds is not None:
            extra["my_seeds"] = read_record(args.my_seeds)
    except urllib.error.HTTPError as exc:
        print(f"FAIL service     cannot read the hand: {exc} {exc.read()[:200]!r}")
        return 2
    except Malformed as exc:
        print(f"FAIL format      {_one_line(exc)}")
        return 1
    except (urllib.error.URLError, OSError, ValueError, KeyError, TypeError) as exc:
        print(f"FAIL read        cannot read the hand: {_one_line(exc)}")
        return 2
    try:
        keys = trusted_keys(report, offered, args.public_key, _pin_file(args), casino)
        return check_export(export, keys=keys, report=report, **extra)
    except Malformed as exc:
        print(f"FAIL format      the export is malformed: {_one_line(exc)}")
        return 1
    except Exception as exc:  # a hostile file fails closed, on one line, never with a traceback
        print(f"FAIL format      the export cannot be checked: {type(exc).__name__}: {_one_line(exc)}")
        return 1


def _one_line(exc: BaseException) -> str:
    """An exception as one short line."""
    return " ".join(str(exc).split())[:200]


def _parser() -> argparse.ArgumentParser:
    """The options (the module's docstring's first paragraph is the description)."""
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
    parser.add_argument(
        "--my-seeds",
        type=Path,
        help="your own record of the client seeds you set (the reference client's download): every seed of yours "
        "the hand used must be in it",
    )
    return parser


# what is read before the checks: the export, what a live check adds, the keys offered (live: the casino's, which may
# be pinned on first use; offline: None, the export's are never believed), the name to pin them under
Fetched = tuple[Any, dict[str, Any], list[dict[str, Any]] | None, str]


def _read_live(args: argparse.Namespace) -> Fetched:
    """From the casino: the hand's export; what a live check adds (the user, the table's whole feed, all its
    checkpoints); the keys the casino offers; the name keys are pinned under."""
    service = Service(args.url, args.token)
    me = service.get("/me")
    export = service.get(f"/hands/{int(args.hand)}/export")
    table_id = export["hand"]["table"]
    extra = {
        "me": me,
        "feed": service.events(table_id),
        "all_checkpoints": service.pages(f"/tables/{table_id}/checkpoints"),
    }
    offered = service.get("/fairness/public-key")["keys"]
    return export, extra, offered, args.casino or args.url.rstrip("/")


def _read_file(args: argparse.Namespace) -> Fetched:
    """From an export file: the export, nothing more, no key (those the export carries are never believed), the
    name keys are pinned under. A file that is not JSON (or nested past what the parser takes) is Malformed."""
    export = parse_json(Path(args.hand).read_bytes())
    return export, {}, None, args.casino or "default"


def _pin_file(args: argparse.Namespace) -> Path | None:
    """Where keys are pinned: ``--pin-file``; without it and without ``--public-key``, the default file (none when
    there is no home directory)."""
    given: Path | None = args.pin_file
    if given is not None or args.public_key:
        return given
    try:
        return default_pin_file()
    except RuntimeError:  # no home directory
        return None


if __name__ == "__main__":
    sys.exit(main())
