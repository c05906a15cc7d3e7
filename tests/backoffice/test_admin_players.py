"""Players and chips: balances, an account's postings with running balance, and the cashier's deposit and
withdrawal forms (through the ledger services, logged, posted once even if sent twice)."""

from __future__ import annotations

import uuid

import pytest
from django.contrib.admin.models import ADDITION, LogEntry

from ledger import services as ledger
from ledger.models import Account, Transaction

pytestmark = pytest.mark.django_db


def _cashier(client, player, operation: str, amount: int, token: str | None = None, reference: str = "R-1"):
    body = {"operation": operation, "amount": str(amount), "reference": reference, "token": token or str(uuid.uuid4())}
    return client.post(f"/admin/casino/player/{player.pk}/cashier/", body)


def test_players_are_listed_with_their_balances(as_auditor, played):
    page = as_auditor.get("/admin/casino/player/?o=2").content.decode()
    for player in played.players:
        assert player.username in page and f'<td class="field-balance">{ledger.wallet_balance(player)}</td>' in page


def test_an_accounts_postings_show_the_running_balance(as_auditor, played):
    player = played.players[0]
    account = Account.objects.get(user=player)
    page = as_auditor.get(f"/admin/ledger/posting/?account__id__exact={account.pk}").content.decode()
    assert f"Postings of {account.code}, newest first (balance now {ledger.wallet_balance(player)})" in page
    detail = as_auditor.get(f"/admin/casino/player/{player.pk}/change/").content.decode()
    for posting in ledger.account_postings(account)[:5]:
        assert f'<td class="num">{posting.balance_after}</td>' in detail
    assert as_auditor.get(f"/admin/ledger/account/{account.pk}/change/").status_code == 200


def test_the_cashier_deposits_and_withdraws_through_the_ledger(as_operator, operator, played):
    player = played.players[0]
    start = ledger.wallet_balance(player)
    response = _cashier(as_operator, player, "deposit", 300)
    assert response.status_code == 302
    assert ledger.wallet_balance(player) == start + 300
    assert _cashier(as_operator, player, "withdrawal", 120).status_code == 302
    assert ledger.wallet_balance(player) == start + 180
    entries = Transaction.objects.filter(actor=operator).order_by("id")
    assert [(e.kind, e.details["reference"]) for e in entries] == [("deposit", "R-1"), ("withdrawal", "R-1")]
    logs = LogEntry.objects.filter(user=operator, action_flag=ADDITION).order_by("id")
    assert [int(log.object_id) for log in logs] == [e.pk for e in entries]
    assert "Deposit of 300 chips" in logs[0].change_message
    page = as_operator.get(f"/admin/casino/player/{player.pk}/change/").content.decode()
    assert f"<b>{start + 180}</b> chips" in page


def test_a_form_sent_twice_posts_once(as_operator, played):
    player = played.players[1]
    start = ledger.wallet_balance(player)
    token = str(uuid.uuid4())
    assert _cashier(as_operator, player, "deposit", 50, token).status_code == 302
    assert _cashier(as_operator, player, "deposit", 50, token).status_code == 302
    assert ledger.wallet_balance(player) == start + 50
    refused = _cashier(as_operator, player, "deposit", 70, token)  # same token, other content: refused
    assert refused.status_code == 200 and ledger.wallet_balance(player) == start + 50


def test_a_withdrawal_beyond_the_balance_is_refused(as_operator, played):
    player = played.players[2]
    start = ledger.wallet_balance(player)
    response = _cashier(as_operator, player, "withdrawal", start + 1)
    assert response.status_code == 200 and "cannot withdraw" in response.content.decode()
    assert _cashier(as_operator, player, "deposit", 0).status_code == 200
    assert ledger.wallet_balance(player) == start and not LogEntry.objects.exists()
