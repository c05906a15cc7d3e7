"""The game-output audit, on hands played through the real services and pipeline (one transaction per command,
events in PostgreSQL), read back from the event store.

The honest code passes; a shuffle that never deals one card first, and a core that pays a wrong multiplier, are
flagged at the sample sizes docs/certification.md states ("What the audit catches"). The faults are planted in the
real modules (``gamemath.shuffle``, ``rules.showdown``) for the test's process, so the pipeline deals and settles
through them; the audit's own reference (``gamemath.worth``, ``gamemath.scoring``) is left as published.

Server seeds are derived from a counter instead of OS entropy (``tables.fairness.draw_next_seed`` replaced for the
test) and the player picks his client seed: the same hands on every run, so no verdict depends on chance.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from datetime import timedelta

import pytest
from django.utils import timezone

from certify import monthly
from certify.audit import TableAudit
from certify.models import AuditRun
from certify.services import audit_period
from gamemath.scoring import Settlement, settle_hand
from rules import DomainError, showdown
from tables import fairness, services
from tables.models import Table
from tables.worth import worth_of
from tests.certify.conftest import NEVER_FIRST
from tests.support.play import make_players, make_table, state_of

pytestmark = pytest.mark.django_db(transaction=True)

#: The sample sizes docs/certification.md states.
HONEST_HANDS = 200
NEVER_FIRST_HANDS = 400
WRONG_PAY_HANDS = 250


@pytest.fixture(autouse=True)
def counted_seeds(monkeypatch: pytest.MonkeyPatch) -> None:
    counter = itertools.count()

    def draw(table_id: int, number: int) -> fairness.NextSeed:
        seed = hashlib.sha256(f"audit-test:{next(counter)}".encode()).digest()
        return fairness.NextSeed(
            commitment=hashlib.sha256(seed).hexdigest(),
            sealed=fairness.seal(table_id, number, seed.hex()),
            seed=seed.hex(),
            number=number,
        )

    monkeypatch.setattr(fairness, "draw_next_seed", draw)


def play(table: Table, hands: int, hits: int = 1) -> None:
    """One punter at a house-banked table: bets the minimum, hits ``hits`` times (when he still may), stands."""
    (user,) = make_players(1, chips=10**6, prefix="audit")
    services.table_sit(table_id=table.pk, user=user)
    services.player_set_client_seed(user=user, client_seed="0" * 31 + "1")
    target = state_of(table.pk).settled_through + hands
    state = state_of(table.pk)
    while state.settled_through < target:
        for action, args in (("bet", {"amount": table_min_bet(state)}), *[("hit", {})] * hits, ("stand", {})):
            try:
                services.table_act(table_id=table.pk, user=user, action=action, args=args)
            except DomainError:
                continue
        state = state_of(table.pk)


def table_min_bet(state) -> int:
    return state.config.min_bet


def audited(table: Table) -> tuple[AuditRun, TableAudit | dict]:
    now = timezone.now()
    run = audit_period(now - timedelta(hours=1), now + timedelta(hours=1), [table.pk])
    return run, run.report


def _figure(report: dict, table: Table, name: str) -> dict:
    return next(f for f in report["figures"][str(table.pk)] if f["name"] == name)


def test_honest_play_passes_the_audit_and_the_report_holds_every_figure(tmp_path) -> None:
    table = make_table("classic", bank="house", min_bet=10, max_bet=10)
    play(table, HONEST_HANDS)
    run, report = audited(table)
    assert run.hands == HONEST_HANDS
    assert run.flagged_tables == []
    (row,) = report["rows"]
    assert row["hands"] == HONEST_HANDS and row["flag"] == ""
    assert row["theoretical_rtp"] == f"{float(worth_of(state_of(table.pk).config).flat):.6f}"  # the card's flat
    low, high = json.loads(row["interval"])
    assert low < float(row["actual_rtp"]) < high
    names = {f["name"] for f in report["figures"][str(table.pk)]}
    assert {"return (net won by the punters)", "ties", "punter 7½", "punter bust", "banker bust"} <= names
    assert {f"first card {c}" for c in ("1O", "12B")} <= names
    assert "punter reale" not in names  # classic has no reale
    csv_path, json_path = monthly.write(run, tmp_path / "2026-12")
    header, line = csv_path.read_text().splitlines()[:2]
    assert header.split(",") == list(monthly.COLUMNS)
    assert line.split(",")[1] == str(table.pk)
    assert json.loads(json_path.read_text())["rule"].startswith("Bonferroni")


def test_italian_rules_audit_reale_and_pairs_of_sevens() -> None:
    table = make_table("italian", bank="house", min_bet=10, max_bet=10)
    play(table, 60)
    run, report = audited(table)
    assert run.flagged_tables == []
    names = {f["name"] for f in report["figures"][str(table.pk)]}
    assert {"punter reale", "punter pair of sevens", "banker reale"} <= names


def test_a_card_never_dealt_first_is_flagged(plant_never_first: None) -> None:
    table = make_table("classic", bank="house", min_bet=10, max_bet=10)
    play(table, NEVER_FIRST_HANDS, hits=0)
    run, report = audited(table)
    assert run.flagged_tables == [table.pk]
    flagged = [f["name"] for f in report["figures"][str(table.pk)] if f["flag"]]
    assert flagged == [f"first card {NEVER_FIRST}"]
    assert _figure(report, table, f"first card {NEVER_FIRST}")["observed"] == 0


def _banker_bust_pays_nothing(punter, stake, banker, rules) -> Settlement:
    """``player_win_pays`` read as 0 when the banker busts: the punter gets his stake back, not his winnings."""
    settlement = settle_hand(punter, stake, banker, rules)
    if banker is not None and banker.category == "bust" and settlement.net > 0:
        return settlement._replace(multiplier=0, net=0)
    return settlement


def test_a_wrong_pay_multiplier_in_the_core_is_flagged(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(showdown, "settle_hand", _banker_bust_pays_nothing)
    table = make_table("classic", bank="house", min_bet=10, max_bet=10)
    play(table, WRONG_PAY_HANDS, hits=0)
    run, report = audited(table)
    assert run.flagged_tables == [table.pk]
    ret = _figure(report, table, "return (net won by the punters)")
    assert ret["flag"] and ret["observed"] < ret["low"]
    (row,) = report["rows"]
    assert row["flag"] == "FLAG" and float(row["deviation"]) < 0
