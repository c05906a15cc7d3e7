"""Staff are operators through the API only with the operator's permissions: an auditor moves no chips."""

from __future__ import annotations

import pytest

from ledger import selectors as ledger_selectors
from tables.models import Table
from tests.support.staff import staff_user

pytestmark = pytest.mark.django_db

TABLE = {"name": "t", "preset": "classic", "min_bet": 5, "max_bet": 50, "max_seats": 6, "bank": "player"}


@pytest.fixture
def auditor():
    return staff_user("api-auditor", "auditor", password="x" * 12)  # read-only staff (docs/admin.md)


def test_an_auditor_cannot_deposit_withdraw_or_create_tables(auditor, player, client_for):
    client = client_for(auditor)
    for path in ("/api/v1/cashier/deposits", "/api/v1/cashier/withdrawals"):
        response = client.post(path, {"username": player.username, "amount": 10, "reference": "x"}, format="json")
        assert response.status_code == 403
        assert response.json()["error"]["code"] == "forbidden"
    response = client.post("/api/v1/tables", TABLE, format="json")
    assert response.status_code == 403 and response.json()["error"]["code"] == "forbidden"
    assert ledger_selectors.wallet_balance(player) == 0
    assert not Table.objects.exists()


def test_an_operator_can(staff, player, client_for):
    client = client_for(staff)
    response = client.post(
        "/api/v1/cashier/deposits", {"username": player.username, "amount": 10, "reference": "x"}, format="json"
    )
    assert response.status_code == 201
    assert client.post("/api/v1/tables", TABLE, format="json").status_code == 201


def test_staff_without_a_role_is_refused(make_user, client_for):
    user = staff_user("bare-staff", None, password="x" * 12)
    assert client_for(user).post("/api/v1/tables", TABLE, format="json").status_code == 403
