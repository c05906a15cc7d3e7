"""The admin in a real headless browser (Playwright for Python driving Debian's chromium).

- An auditor signs in, filters the hands by a player, opens a settled hand, steps the replay to the end, presses
  verify and sees every check pass. Screenshots of the hand page and of the replay are saved under
  ``artifacts/admin/`` (git-ignored).
- An operator signs in, opens a dispute (its hand one click away), resolves it with a compensating entry, and
  ``manage.py reconcile`` (a real process on the test database) passes afterwards.

The browser is ``/usr/bin/chromium`` (``playwright install`` cannot download here). If it is missing the
fixture tries ``apt-get install -y chromium`` once (as root, bounded in time) and otherwise skips, saying why.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ledger.models import Transaction
from tables.models import Dispute, Hand
from tests.conftest import ROOT, child_database_url
from tests.support.admin_fixtures import PASSWORD, open_dispute, play_table

pytestmark = pytest.mark.django_db(transaction=True)

ARTIFACTS = ROOT / "artifacts" / "admin"


def _sign_in(page: Any, live_server: Any, username: str, landing: str) -> None:
    page.goto(f"{live_server.url}/admin/login/?next={landing}")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"**{landing}")


def _shot(target: Any, name: str, **options: Any) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    target.screenshot(path=str(path), **options)
    assert path.stat().st_size > 0
    return path


def test_an_auditor_filters_opens_replays_and_verifies_a_hand(page, live_server, auditor):
    played = play_table("classic", hands=3, seed=21, prefix="br")
    play_table("spanish", hands=1, seed=5, prefix="other")
    player = played.players[0]
    expected = set(Hand.objects.filter(participants__user=player).values_list("pk", flat=True))
    settled = Hand.objects.filter(participants__user=player, status="settled").order_by("-id").first()
    assert settled is not None

    _sign_in(page, live_server, auditor.username, "/admin/tables/hand/")
    page.fill("input[name=player]", player.username)
    page.press("input[name=player]", "Enter")
    page.wait_for_url("**player=*")
    listed = {int(text) for text in page.locator("#result_list tbody th.field-id a").all_inner_texts()}
    assert listed == expected

    page.click(f"#result_list th a[href^='/admin/tables/hand/{settled.pk}/change/']")
    page.wait_for_selector("#hand-page[data-status=settled]")
    assert page.locator("#summary").inner_text().count(player.username) >= 1
    assert page.locator("#hand-now .card.back:not(.sample)").count() == 0
    _shot(page, "hand_page.png", full_page=True)

    steps = int(page.get_attribute("#replay", "data-steps"))
    assert steps > 3
    for expected_step in range(2, steps + 1):
        page.click("#replay-next")
        page.wait_for_selector(f"#replay[data-step='{expected_step}']")
    assert page.locator("#replay-next").count() == 0  # the end: nothing after the last step
    assert "HandSettled" in page.locator("#replay-event").inner_text()
    assert "net" in page.locator("#replay-state").inner_text()
    _shot(page.locator("#replay"), "replay.png")

    page.click("#verify-button")
    page.wait_for_selector("#verification")
    checks = page.locator("#verification tr[data-check]")
    assert checks.count() == 6  # commitment, shuffle, replay, ledger, chain, checkpoint
    assert page.locator("#verification tr.check-ok").count() == 6
    assert "every check passed" in page.locator("#verification h2").inner_text()
    _shot(page.locator("#verification"), "verification.png")
    settled.refresh_from_db()
    assert settled.verified_ok is True


def test_an_operator_resolves_a_dispute_with_a_compensating_entry_and_the_ledger_reconciles(
    page, live_server, operator, child_env
):
    played = play_table("classic", hands=2, seed=33, prefix="dis")
    hand = played.settled[0]
    dispute = open_dispute(hand, reason="I was paid one to one for a seven and a half")

    _sign_in(page, live_server, operator.username, "/admin/tables/dispute/")
    page.click(f"#result_list th a[href^='/admin/tables/dispute/{dispute.pk}/change/']")
    page.wait_for_selector("#dispute-page[data-status=open]")
    page.click("#dispute-hand-link")  # the hand, one click away
    page.wait_for_selector(f"#hand-page[data-hand='{hand.pk}']")
    page.go_back()
    page.wait_for_selector("#resolve-form")

    page.fill("#id_resolution", "Checked the replay: a correction of 15 chips is owed")
    page.fill("#id_amount", "15")
    assert page.input_value("#id_credit") == f"player:{dispute.user.username}"
    assert page.input_value("#id_debit") == "house:bankroll"
    page.click("#resolve-button")
    page.wait_for_selector("#dispute-page[data-status=resolved]")
    assert "resolved" in page.locator(".messagelist").inner_text()
    _shot(page, "dispute_resolved.png", full_page=True)

    dispute.refresh_from_db()
    assert dispute.status == "resolved" and dispute.resolved_by_id == operator.pk
    entry = Transaction.objects.get(pk=dispute.correction_transaction_id)
    assert entry.kind == "correction" and entry.actor_id == operator.pk and entry.details["dispute_id"] == dispute.pk
    assert Dispute.objects.filter(status="open").count() == 0

    env = {**child_env, "DATABASE_URL": child_database_url(), "DJANGO_SETTINGS_MODULE": "casino.settings_test"}
    result = subprocess.run(
        [sys.executable, "manage.py", "reconcile"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "[FAIL]" not in result.stdout and "correction" not in result.stderr
