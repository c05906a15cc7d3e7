"""Every check of one hand from its export, in the order they are printed (docs/fairness.md says what each
proves). The checkpoints are verified first (nothing else is believed before a signature says so), then every
result is derived from the signed events and facts, and the history shown beside them is compared with them."""

from __future__ import annotations

from typing import Any

from verifier.agree import check_history
from verifier.cards import check_deck_and_deals, check_feed
from verifier.chain import check_chain_and_checkpoints
from verifier.hand import Hand
from verifier.ledger import check_ledger
from verifier.report import Report
from verifier.results import check_game, check_totals_and_results
from verifier.seeds import check_my_seeds, check_seeds
from verifier.shape import check_shape
from verifier.signed import verify_checkpoints

EXPORT_FORMAT = "sevenhalf-hand-export/1"


def check_export(
    export: Any,
    *,
    keys: dict[str, bytes],
    report: Report,
    feed: list[dict[str, Any]] | None = None,
    all_checkpoints: list[dict[str, Any]] | None = None,
    me: dict[str, Any] | None = None,
    my_seeds: dict[str, Any] | None = None,
) -> int:
    """Every check of one hand from its export (``feed``, ``all_checkpoints`` and ``me``: what a live server
    adds; ``my_seeds``: the player's own record of the client seeds he set). Returns the exit status. Raises
    ``verifier.shape.Malformed`` for a file that is not an export."""
    if not isinstance(export, dict) or export.get("format") != EXPORT_FORMAT:
        shown = export.get("format") if isinstance(export, dict) else type(export).__name__
        report.line(False, "format", f"not a hand export ({str(shown)[:80]!r}, expected {EXPORT_FORMAT!r})")
        return 1
    check_shape(export)
    history = export["hand"]
    table_id = history["table"]
    events = sorted(export["events"], key=lambda e: e["seq"])
    who = f"; checked as {me['username']}" if me else ""
    print(f"hand {history['id']}: table {table_id}, hand #{history['number']}, {history['status']}{who}")
    check_game(report, export.get("game") or {}, history.get("game") or {})
    if history["status"] not in ("settled", "abandoned"):
        report.line(False, "status", f"the hand is {history['status']}: only an ended hand can be checked")
        return 1
    checkpoints = list(export["checkpoints"])
    if all_checkpoints is not None:  # live: those of the export's stretch and the table's latest
        first, last = (events[0]["seq"], events[-1]["seq"]) if events else (0, 0)
        checkpoints += [c for c in all_checkpoints if first <= c["version"] <= last]
        checkpoints += all_checkpoints[-1:]
    signatures = verify_checkpoints(table_id, checkpoints, keys)
    hand = Hand.find(history, events, feed, signatures)
    if hand is None:
        report.line(False, "events", f"the events do not hold hand #{history['number']} from its opening to its end")
        return 1
    check_seeds(report, hand, me)
    if my_seeds is not None:
        check_my_seeds(report, hand, my_seeds)
    check_history(report, hand)
    if hand.closed["type"] == "HandAbandoned":  # no deck, no results: its chips, its chain and its checkpoints
        if hand.dealt:
            report.line(False, "deals", f"the hand was abandoned, yet {len(hand.dealt)} cards were dealt")
    else:
        deck = check_deck_and_deals(report, hand)
        check_feed(report, hand, deck)
        check_totals_and_results(report, hand)
    check_ledger(report, history, hand.closed["data"])
    check_chain_and_checkpoints(report, table_id, events, signatures, hand.closed["seq"], feed)
    return report.summary()
