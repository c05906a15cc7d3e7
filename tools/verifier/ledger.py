"""The ``ledger`` check: the hand's ledger transactions balance, and each party's postings add up to its net."""

from __future__ import annotations

from typing import Any

from verifier.report import Report


def check_ledger(report: Report, history: dict[str, Any], settled: dict[str, Any]) -> None:
    """Each transaction balances; each player's postings add up to his net in the signed settlement (a player
    banker's to the banker's net), the house bankroll's to a house banker's net, and the table's escrow to zero.
    Wallets are named by username, which only the history shows: the nets come from the signed events."""
    problems: list[str] = []
    totals: dict[str, int] = {}
    for tx in history.get("ledger") or []:
        amounts = [int(p["amount"]) for p in tx["postings"]]
        if sum(amounts) != 0:
            problems.append(f"transaction {tx['transaction_id']} does not balance ({sum(amounts)})")
        for posting in tx["postings"]:
            totals[posting["account"]] = totals.get(posting["account"], 0) + int(posting["amount"])
    expected: dict[str, int] = {}
    by_seat = {p["seat"]: p["username"] for p in history["participants"]}
    for r in settled.get("results") or []:
        account = f"player:{by_seat.get(r['seat'])}"
        expected[account] = expected.get(account, 0) + int(r["net"])
    banker = history["banker"]
    banker_net = settled.get("banker_net")
    if banker_net is not None:
        if banker["username"] is not None:
            account = f"player:{banker['username']}"
            expected[account] = expected.get(account, 0) + int(banker_net)
        else:
            expected["house:bankroll*"] = int(banker_net)
    house = sum(v for k, v in totals.items() if k == "house:bankroll" or k.startswith("house:bankroll:"))
    for account, net in sorted(expected.items()):
        moved = house if account == "house:bankroll*" else totals.get(account, 0)
        if moved != net:
            problems.append(f"{account} moved {moved} in the ledger, its net in the results is {net}")
    for account, moved in sorted(totals.items()):
        if account.startswith("escrow:") and moved != 0:
            problems.append(f"{account} is left with {moved} after the hand")
        elif account.startswith("player:") and account not in expected and moved != 0:
            problems.append(f"{account} moved {moved} but has no result in the hand")
    transactions = len(history.get("ledger") or [])
    report.line(not problems, "ledger", "; ".join(problems) or f"{transactions} transactions balance the results")
