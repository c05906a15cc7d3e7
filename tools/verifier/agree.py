"""The ``history`` check (API.md v1.3): every fact the hand's history states that a result is derived from, against
the signed events and facts it must come from (``verifier.hand``). The history is shown, never trusted: the other
checks read the signed side, and a disagreement here is a failure."""

from __future__ import annotations

from collections import Counter
from typing import Any

from verifier.hand import Hand
from verifier.report import Report

RESULT_FIELDS = ("bet", "category", "total_half_points", "outcome", "tie", "multiplier", "net")


def check_history(report: Report, hand: Hand) -> None:
    """One line: the first disagreement between the history and the signed events, or what was compared."""
    problems = _disagreements(hand)
    report.line(
        not problems,
        "history",
        "; ".join(problems[:3])
        or "the seeds, seats, roles, client seeds, cards, stakes and results shown are the signed events'"
        + (", the table card the checkpoint's" if hand.table_card is not None else ""),
    )


def _disagreements(hand: Hand) -> list[str]:
    history, opened, closed = hand.history, hand.opened["data"], hand.closed["data"]
    problems: list[str] = []
    if history["seed_commitment"] != opened["seed_commitment"]:
        problems.append(
            f"seed commitment {history['seed_commitment']}, the hand opened with {opened['seed_commitment']}"
        )
    if (history["server_seed"] or "") != hand.server_seed:
        problems.append(f"server seed {history['server_seed']}, the closing event reveals {hand.server_seed or None}")
    if (history["client_seed"] or "") != hand.client_seed:
        problems.append(f"client seed {history['client_seed']!r}, the events fixed {hand.client_seed!r}")
    if history["banker"]["seat"] != opened["banker_seat"]:
        problems.append(f"the banker at seat {history['banker']['seat']}, the hand opened with {opened['banker_seat']}")
    if hand.table_card is not None:
        card = hand.table_card
        if history["rules"] != card.get("rules"):
            problems.append("the rules shown are not the table card the checkpoint signs")
    if history["status"] != ("settled" if hand.closed["type"] == "HandSettled" else "abandoned"):
        problems.append(f"the hand shown as {history['status']}, the events end it with {hand.closed['type']}")
    problems += _participants(hand)
    problems += _deals(hand)
    problems += _results(history["results"], closed.get("results") or [], hand.closed["type"])
    problems += _stakes(hand)
    return problems


def _participants(hand: Hand) -> list[str]:
    problems = []
    banker_seat = hand.opened["data"]["banker_seat"]
    for p in hand.history["participants"]:
        seat = p["seat"]
        if (p["role"] == "banker") != (seat == banker_seat):
            problems.append(f"seat {seat} shown as {p['role']}, the hand opened with the banker at {banker_seat}")
        signed = hand.seats.get(seat) if seat is not None else None
        if signed is None:
            continue
        shown = (p.get("client_seed"), p.get("client_seed_set_at"))
        if shown != (signed.client_seed, signed.set_at):
            problems.append(
                f"seat {seat}'s client seed shown as {shown[0]!r} set at {shown[1]}, the signed events say "
                f"{signed.client_seed!r} set at {signed.set_at}"
            )
    return problems


def _deals(hand: Hand) -> list[str]:
    shown = [
        (d["seq"], d["to_seat"], d["card"], d["face_up"]) for d in sorted(hand.history["deals"], key=lambda d: d["seq"])
    ]
    signed = [(e["seq"], e["data"]["seat"], e["data"]["card"], e["data"]["face_up"]) for e in hand.dealt]
    if shown != signed:
        wrong = next((a, b) for a, b in zip([*shown, None], [*signed, None], strict=False) if a != b)
        return [f"deal {wrong[0]} shown, the events dealt {wrong[1]}"]
    by_seat: dict[Any, Counter[str]] = {}
    for e in hand.dealt:
        key = "banker" if e["data"]["banker"] else e["data"]["seat"]
        by_seat.setdefault(key, Counter())[str(e["data"]["card"])] += 1
    held: dict[Any, Counter[str]] = {}
    for p in hand.history["participants"]:
        key = "banker" if p["role"] == "banker" else p["seat"]
        for h in p["hands"]:
            held.setdefault(key, Counter()).update(h["cards"])
    if {k: v for k, v in held.items() if v} != {k: v for k, v in by_seat.items() if v}:
        return ["the cards the participants hold are not the cards the events dealt them"]
    return []


def _results(shown: list[dict[str, Any]], signed: list[Any], closing: str) -> list[str]:
    if closing != "HandSettled":
        return [f"{len(shown)} results shown for a hand that was abandoned"] if shown else []

    def row(r: Any) -> tuple[Any, ...]:
        return tuple(r.get(k) for k in ("seat", "hand", *RESULT_FIELDS)) if isinstance(r, dict) else (r,)

    mine = sorted(map(row, shown), key=repr)
    theirs = sorted(map(row, signed), key=repr)
    if mine != theirs:
        first = next((a, b) for a, b in zip([*mine, None], [*theirs, None], strict=False) if a != b)
        return [f"result {first[0]} shown, the settlement event says {first[1]}"]
    return []


def _stakes(hand: Hand) -> list[str]:
    staked: Counter[int] = Counter()
    for e in hand.events:
        if hand.opened["seq"] < e["seq"] < hand.closed["seq"] and e["type"] in (
            "BetPlaced",
            "StakeRaised",
            "HandSplit",
        ):
            staked[e["data"]["seat"]] += e["data"]["amount"]
    bets: Counter[int] = Counter()
    for r in hand.history["results"]:
        bets[r["seat"]] += r["bet"]
    if hand.closed["type"] == "HandSettled" and +bets != +staked:
        return [f"stakes shown {dict(bets)}, the events staked {dict(staked)}"]
    return []
