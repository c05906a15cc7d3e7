"""Issue #43, "an operator credits chips to himself alone": a deposit above ``CASHIER_SECOND_OPERATOR_ABOVE`` waits
for a second operator. The operator who asked cannot approve it (the admin's action refuses, and so does the
database); another one can, and only then are the chips credited. The audit log names both."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.admin.models import LogEntry
from django.db import DatabaseError, connection, transaction
from django.urls import reverse

from ledger import services as ledger
from ledger.models import PendingCredit
from tables.admin.roles import OPERATOR
from tests.support.admin_fixtures import signed_in
from tests.support.game_helpers import ok

pytestmark = pytest.mark.django_db

BIG = 100_001  # one chip above the default setting


def _approve(client: Any, pending: PendingCredit) -> Any:
    return client.post(
        reverse("admin:ledger_pendingcredit_changelist"),
        {"action": "approve", "_selected_action": [pending.pk]},
        follow=True,
    )


def test_a_big_credit_waits_for_a_second_operator(make_staff: Any, player: Any, client_for: Any, settings: Any) -> None:
    assert settings.CASHIER_SECOND_OPERATOR_ABOVE == BIG - 1
    first, second = make_staff(OPERATOR), make_staff(OPERATOR)
    body = ok(
        client_for(first).post(
            "/api/v1/cashier/deposits", {"username": player.username, "amount": BIG, "reference": "r"}, format="json"
        ),
        202,
    )
    pending = PendingCredit.objects.get(pk=body["pending_credit_id"])
    assert body["status"] == "pending" and pending.requested_by_id == first.pk
    assert ledger.wallet_balance(player) == 0

    page = _approve(signed_in(first), pending)  # the one who asked
    assert "a second operator decides it" in page.content.decode()
    pending.refresh_from_db()
    assert pending.status == "pending" and ledger.wallet_balance(player) == 0

    refused = pytest.raises(DatabaseError, match="casino_credit_second_operator")
    with refused, transaction.atomic(), connection.cursor() as cursor:  # straight to the table, as the app role
        cursor.execute("UPDATE ledger_pendingcredit SET decided_by_id = requested_by_id, status = 'approved'")

    _approve(signed_in(second), pending)
    pending.refresh_from_db()
    assert pending.status == "approved" and pending.decided_by_id == second.pk
    assert ledger.wallet_balance(player) == BIG
    lines = list(LogEntry.objects.filter(user_id__in=[first.pk, second.pk]).values_list("user_id", "change_message"))
    assert any(user == first.pk and "waits for a second operator" in text for user, text in lines)
    assert any(user == second.pk and f"asked by {first.username}" in text for user, text in lines)


def test_a_credit_up_to_the_setting_is_posted_at_once(make_staff: Any, player: Any, client_for: Any) -> None:
    operator = make_staff(OPERATOR)
    ok(
        client_for(operator).post(
            "/api/v1/cashier/deposits",
            {"username": player.username, "amount": BIG - 1, "reference": "r"},
            format="json",
        ),
        201,
    )
    assert ledger.wallet_balance(player) == BIG - 1 and not PendingCredit.objects.exists()
