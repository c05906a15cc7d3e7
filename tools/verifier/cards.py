"""The card checks: ``deck`` (the published shuffle of the seeds gives the deck shown), ``deals`` (every card
dealt, in order, is the next of that deck) and ``feed`` (every card the events show is the history's and the
deck's)."""

from __future__ import annotations

from gamemath.shuffle import shuffle_deck
from verifier.hand import Hand
from verifier.report import Report


def check_deck_and_deals(report: Report, hand: Hand) -> list[str]:
    """The deck shuffled from (server seed, client seed, hand number) against the one shown, and every card dealt
    against it in order; the deck (empty when no seed was revealed)."""
    history, deals = hand.history, hand.deals
    seed, client_seed = history["server_seed"], history["client_seed"]
    deck = shuffle_deck(bytes.fromhex(seed), client_seed or "", hand.number) if seed else []
    report.line(deck == history["deck"], "deck", " ".join(deck))
    wrong = [(i, d) for i, d in enumerate(deals) if i >= len(deck) or d["card"] != deck[i]]
    if wrong:
        i, deal = wrong[0]
        expected_card = deck[i] if i < len(deck) else "nothing"
        report.line(False, "deals", f"seq {deal['seq']} dealt {deal['card']}, the deck has {expected_card} there")
    else:
        report.line(True, "deals", f"{len(deals)} cards, each the next of the deck")
    return deck


def check_feed(report: Report, hand: Hand, deck: list[str]) -> None:
    """Every ``CardDealt`` of the hand in the export's events and (live) the feed: shown now the hand is over, the
    history's card at that seq, and the deck's card at its index."""
    history_cards = {d["seq"]: d["card"] for d in hand.deals}
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
        not feed_problems and shown >= len(hand.deals),
        "feed",
        "; ".join(feed_problems[:3]) or f"{shown} dealt cards in the events, each the history's and the deck's",
    )
