"""A verification's notes are not checks (tables.verify.Verification): the ``deck`` note of a hand that dealt no
card never counts as a failing check, in the typed result, the API body or a summary of what failed."""

from __future__ import annotations

import pytest

from tables import services
from tables.models import Hand
from tables.verify import CHECKS, verify_hand
from tests.support.play import make_players, make_table, state_of

pytestmark = pytest.mark.django_db


def test_a_hand_without_a_deck_has_a_deck_note_beside_its_checks() -> None:
    table = make_table("classic", bank="house", betting_timeout_s=1)
    for user in make_players(2, prefix="note"):
        services.table_sit(table_id=table.pk, user=user)
    state = state_of(table.pk)
    assert state.awaiting is not None and state.awaiting.kind in ("bet", "bets"), state.awaiting
    services.table_timeout(table_id=table.pk, version=state.version, now_ms=state.awaiting.deadline_ms)
    hand = Hand.objects.get(table=table, number=1)
    assert hand.status == "abandoned"

    report = verify_hand(hand, record=False)
    assert tuple(report.checks) == CHECKS
    assert "deck" not in report.checks and "client seed was never fixed" in report.notes["deck"]
    assert report.ok and report.failing() == {}, report
    assert report.as_body() == {**report.checks, "deck": report.notes["deck"]}
