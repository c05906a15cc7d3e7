"""Disputes: listed with the hand one click away; an operator resolves one with a note and, when chips are owed,
a compensating ledger entry (a new transaction with the operator and the dispute), after which the ledger
still reconciles."""

from __future__ import annotations

import pytest
from django.contrib.admin.models import ADDITION, CHANGE, LogEntry
from django.utils.html import escape

from ledger import services as ledger
from ledger.models import Transaction
from ledger.reconcile import reconcile
from tables.models import Dispute
from tests.support.admin_fixtures import open_dispute

pytestmark = pytest.mark.django_db


def _resolve(client, dispute: Dispute, **fields: object):
    body = {"resolution": "Checked the replay", "amount": "", "credit": f"player:{dispute.user.username}"}
    body["debit"] = "house:bankroll"
    body.update({k: str(v) for k, v in fields.items()})
    return client.post(f"/admin/tables/dispute/{dispute.pk}/change/", body)


def test_the_disputes_list_links_each_to_its_hand(as_auditor, played):
    dispute = open_dispute(played.settled[0])
    page = as_auditor.get("/admin/tables/dispute/").content.decode()
    assert f'href="/admin/tables/hand/{dispute.hand_id}/change/"' in page
    detail = as_auditor.get(f"/admin/tables/dispute/{dispute.pk}/change/").content.decode()
    assert f'href="/admin/tables/hand/{dispute.hand_id}/change/"' in detail and escape(dispute.reason) in detail


def test_an_operator_resolves_a_dispute_with_a_compensating_entry(as_operator, operator, played):
    hand = played.settled[0]
    dispute = open_dispute(hand)
    player = dispute.user
    before = ledger.wallet_balance(player)
    bankroll = ledger.balance("house:bankroll")
    response = _resolve(as_operator, dispute, resolution="Dealer error: refund the stake", amount=25)
    assert response.status_code == 302
    dispute.refresh_from_db()
    assert dispute.status == "resolved" and dispute.resolved_by == operator and dispute.resolved_at is not None
    assert dispute.resolution == "Dealer error: refund the stake"
    entry = Transaction.objects.get(pk=dispute.correction_transaction_id)
    assert entry.kind == "correction" and entry.actor == operator and entry.details["dispute_id"] == dispute.pk
    assert {p.account.code: p.amount for p in entry.postings.all()} == {
        f"player:{player.username}": 25,
        "house:bankroll": -25,
    }
    assert ledger.wallet_balance(player) == before + 25 and ledger.balance("house:bankroll") == bankroll - 25
    logs = LogEntry.objects.filter(user=operator)
    assert logs.filter(action_flag=CHANGE, object_id=str(dispute.pk), change_message__contains="Resolved").exists()
    assert logs.filter(action_flag=ADDITION, object_id=str(entry.pk)).exists()
    assert reconcile().ok
    page = as_operator.get(f"/admin/tables/dispute/{dispute.pk}/change/").content.decode()
    assert f"transaction {entry.pk}" in page and "resolve-form" not in page
    hand_page = as_operator.get(f"/admin/tables/hand/{hand.pk}/change/").content.decode()
    assert f"transaction {entry.pk}" in hand_page  # the hand's ledger shows the compensation


def test_a_dispute_without_chips_owed_posts_nothing(as_operator, played):
    dispute = open_dispute(played.settled[0])
    count = Transaction.objects.count()
    assert _resolve(as_operator, dispute, resolution="The replay and the verification are correct").status_code == 302
    dispute.refresh_from_db()
    assert dispute.status == "resolved" and dispute.correction_transaction_id is None
    assert Transaction.objects.count() == count


def test_a_dispute_is_resolved_once(as_operator, played):
    dispute = open_dispute(played.settled[0])
    assert _resolve(as_operator, dispute, amount=5).status_code == 302
    assert _resolve(as_operator, dispute, amount=5).status_code == 403  # no longer open: no form to send
    assert Transaction.objects.filter(kind="correction").count() == 1


def test_a_refused_entry_changes_nothing(as_operator, played):
    dispute = open_dispute(played.settled[0])
    other = next(p for p in played.players if p != dispute.user)
    wallet = f"player:{other.username}"
    too_much = ledger.wallet_balance(other) + 1
    response = _resolve(as_operator, dispute, amount=too_much, credit=f"player:{dispute.user.username}", debit=wallet)
    assert response.status_code == 200 and "holds" in response.content.decode()
    response = _resolve(as_operator, dispute, amount=5, debit=f"player:{dispute.user.username}")
    assert response.status_code == 200 and "another account" in response.content.decode()
    assert _resolve(as_operator, dispute, resolution="").status_code == 200
    dispute.refresh_from_db()
    assert dispute.status == "open" and not Transaction.objects.filter(kind="correction").exists()
    assert not LogEntry.objects.exists()
