"""The rules checks: ``game`` (which rules dealt the hand, and whether they are the rules core this verifier runs),
``totals`` (every hand's total from its cards) and ``results`` (every punter hand re-decided from the cards and the
bets by the game's maths; the banker's net is minus their sum)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gamemath.release import rules_sha256
from gamemath.ruleset import Rules, rules_from_dict
from gamemath.scoring import Score, evaluate, settle_hand
from verifier.hand import Hand
from verifier.report import Report

ROOT = Path(__file__).resolve().parents[2]  # the project's root: the rules core this verifier runs


def check_game(report: Report, game: dict[str, Any], shown: dict[str, Any]) -> None:
    """Which rules the hand was played under (``game``: its id, the released version and the digest of the rules
    core, recorded when it opened), against the rules core this verifier runs (the totals and results below are
    re-decided by it)."""
    if game != shown:
        report.line(False, "game", f"the export says {game}, the hand's history {shown}")
    name, version, digest = game.get("id"), game.get("version"), game.get("rules_sha256")
    mine = rules_sha256(ROOT)
    if version is None or digest is None:
        report.note("game", f"{name}: the casino does not say which rules dealt this hand (opened before it did)")
    elif digest == mine:
        print(f"--   game         {name} {version}, rules sha256 {digest}: the rules core this verifier runs")
    else:
        report.note(
            "game",
            f"{name} {version}, rules sha256 {digest}; this verifier runs other rules ({mine}): the totals and results "
            "are re-decided by those (run the verifier of the casino's release for an exact match)",
        )


def check_totals_and_results(report: Report, hand: Hand) -> None:
    """``totals`` then ``results``, under the table card a checkpoint signs (before v1.3: as the history states
    it, said)."""
    if hand.table_card is not None:
        rules = rules_from_dict(hand.table_card["rules"])
    else:
        report.note("rules", "no checkpoint here signs the table card (signed before v1.3): the history's rules")
        rules = rules_from_dict(hand.history["rules"])
    scores = check_totals(report, hand, rules)
    check_results(report, hand, rules, scores)


def check_totals(report: Report, hand: Hand, rules: Rules) -> dict[tuple[int | None, int], Score]:
    """Every hand's total from its cards under ``rules`` against the total shown (a banker who did not need to
    play is not scored); the scores by (seat, hand index)."""
    bad_totals = []
    scores: dict[tuple[int | None, int], Score] = {}
    for p in hand.history["participants"]:
        split = p["role"] == "punter" and len(p["hands"]) > 1
        for h in p["hands"]:
            score = evaluate(tuple(h["cards"]), rules, split=split)
            scores[(p["seat"], h["index"])] = score
            unplayed_banker = p["role"] == "banker" and hand.closed["data"].get("banker_category") is None
            if unplayed_banker and h["total_half_points"] is None:
                continue  # a banker who did not need to play is not scored
            if score.total_hp != h["total_half_points"]:
                bad_totals.append(
                    f"seat {p['seat']} hand {h['index']}: {h['total_half_points']} shown, {score.total_hp} by the rules"
                )
    report.line(not bad_totals, "totals", "; ".join(bad_totals) or f"{len(scores)} hands")
    return scores


def check_results(report: Report, hand: Hand, rules: Rules, scores: dict[tuple[int | None, int], Score]) -> None:
    """Every punter hand's category, total, outcome, tie, multiplier and net, re-decided from its score, its bet
    and the banker's score, against the settlement event (the history's are compared with it by ``history``); the
    banker's net against the punters'."""
    settled = hand.closed["data"]
    banker_seat = hand.opened["data"]["banker_seat"]
    banker_score = scores.get((banker_seat, 0)) if settled.get("banker_category") is not None else None
    bad_results = []
    signed_results = settled.get("results") or []
    for r in signed_results:
        score = scores.get((r["seat"], r["hand"]))
        if score is None:
            bad_results.append(f"seat {r['seat']} hand {r['hand']}: no such hand")
            continue
        try:
            outcome, tie, multiplier, net = settle_hand(score, r["bet"], banker_score, rules)
        except ValueError as refused:  # e.g. a rewritten card turned a bust into a hand that needed the banker
            bad_results.append(f"seat {r['seat']} hand {r['hand']}: cannot be re-decided ({refused})")
            continue
        mine_row = (score.category, score.total_hp, outcome, tie, multiplier, net)
        shown_row = (r["category"], r["total_half_points"], r["outcome"], r["tie"], r["multiplier"], r["net"])
        if mine_row != shown_row:
            bad_results.append(f"seat {r['seat']} hand {r['hand']}: signed {shown_row}, re-decided {mine_row}")
    banker_net = settled.get("banker_net")
    if banker_net is not None and banker_net != -sum(r["net"] for r in signed_results):
        bad_results.append(f"the banker's net {banker_net} is not minus the punters' nets")
    report.line(not bad_results, "results", "; ".join(bad_results) or f"{len(signed_results)} punter hands")
