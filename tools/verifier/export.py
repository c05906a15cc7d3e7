"""Every check of one hand from its export, in the order they are printed (docs/fairness.md says what each
proves)."""

from __future__ import annotations

from typing import Any

from verifier.cards import check_deck_and_deals, check_feed
from verifier.chain import check_chain_and_checkpoints
from verifier.hand import Hand
from verifier.ledger import check_ledger
from verifier.report import Report
from verifier.results import check_game, check_totals_and_results
from verifier.seeds import check_seeds

EXPORT_FORMAT = "sevenhalf-hand-export/1"


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
    who = f"; checked as {me['username']}" if me else ""
    print(f"hand {history['id']}: table {history['table']}, hand #{history['number']}, {history['status']}{who}")
    check_game(report, export.get("game") or {}, history.get("game") or {})
    if history["status"] not in ("settled", "abandoned"):
        report.line(False, "status", f"the hand is {history['status']}: only an ended hand can be checked")
        return 1
    hand = Hand.find(history, events, feed)
    if hand is None:
        report.line(False, "events", f"the events do not hold hand #{history['number']} from its opening to its end")
        return 1
    check_seeds(report, hand, me)
    if history["status"] == "abandoned":  # no deck, no results: its chips, its chain and its checkpoints
        if hand.deals:
            report.line(False, "deals", f"the hand was abandoned, yet {len(hand.deals)} cards were dealt")
    else:
        deck = check_deck_and_deals(report, hand)
        check_feed(report, hand, deck)
        check_totals_and_results(report, hand)
    check_ledger(report, history, hand.closed["data"])
    check_chain_and_checkpoints(report, export, events, keys, hand.closed["seq"], feed, all_checkpoints)
    return report.summary()
