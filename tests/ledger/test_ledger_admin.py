"""The read-only admin views render, show balances and running balances, and allow no edits."""

from __future__ import annotations

import pytest

from ledger import services
from ledger.models import Account

pytestmark = pytest.mark.django_db


@pytest.fixture
def entry(make_user, operator):
    player = make_user("alice")
    return services.deposit(user=player, amount=70, reference="r", operator=operator, cause="request:1:a")


def test_accounts_list_shows_balances(admin_client, entry):
    response = admin_client.get("/admin/ledger/account/")
    assert response.status_code == 200
    assert b"house:cage" in response.content and b"-70" in response.content


def test_postings_of_an_account_show_the_running_balance(admin_client, entry):
    wallet = Account.objects.get(kind="wallet")
    response = admin_client.get(f"/admin/ledger/posting/?account__id__exact={wallet.pk}")
    assert response.status_code == 200
    assert wallet.code.encode() in response.content


def test_a_transaction_shows_its_postings_and_cannot_be_changed(admin_client, entry):
    response = admin_client.get(f"/admin/ledger/transaction/{entry.pk}/change/")
    assert response.status_code == 200
    assert b"request:1:a" in response.content
    assert b'name="_save"' not in response.content
    assert admin_client.post(f"/admin/ledger/transaction/{entry.pk}/delete/").status_code == 403
    assert admin_client.get("/admin/ledger/posting/add/").status_code == 403
