"""The card checks: ``deck`` (the published shuffle of the seeds gives the deck shown), ``deals`` (every card
dealt, in order, is the next of that deck) and ``feed`` (every card the events show is the history's and the
deck's)."""

from __future__ import annotations

from gamemath.shuffle import shuffle_deck
from verifier.hand import Hand
from verifier.report import Report


def check_deck_and_deals(report: Report, hand: Hand) -> list[str]:
    """The deck shuffled from the signed (server seed, client seed, hand number) against the one shown, and every
    card the events dealt against it in order; the deck (empty when no seed was revealed)."""
    seed, client_seed = hand.server_seed, hand.client_seed
    valid = len(seed) == 64 and all(c in "0123456789abcdef" for c in seed)
    deck = shuffle_deck(bytes.fromhex(seed), client_seed, hand.number) if valid else []
    report.line(deck == hand.history["deck"], "deck", " ".join(deck) or "no server seed to shuffle with")
    wrong = [
        (i, e["data"])
        for i, e in enumerate(hand.dealt)
        if i >= len(deck) or e["data"]["card"] != deck[i] or e["data"]["deck_index"] != i
    ]
    if wrong:
        i, deal = wrong[0]
        expected_card = deck[i] if i < len(deck) else "nothing"
        report.line(
            False,
            "deals",
            f"card {i + 1} dealt {deal['card']} from index {deal['deck_index']}, the deck has {expected_card} at {i}",
        )
    else:
        report.line(True, "deals", f"{len(hand.dealt)} cards, each the next of the deck")
    return deck


def check_feed(report: Report, hand: Hand, deck: list[str]) -> None:
    """Every ``CardDealt`` of the hand in the export's events and (live) the feed: shown now the hand is over, the
    history's card at that seq, and the deck's card at its index."""
    history_cards = {d["seq"]: d["card"] for d in hand.history["deals"]}
    feed_problems = []
    shown = 0
    for source, rows in (("export", hand.events), ("feed", hand.feed or [])):
        for e in rows:
            data = e["data"]
            if e["type"] != "CardDealt" or data.get("number") != hand.number:
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
        not feed_problems and shown >= len(hand.dealt),
        "feed",
        "; ".join(feed_problems[:3]) or f"{shown} dealt cards in the events, each the history's and the deck's",
    )
