"""Assertions shared by the API tests."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Sum
from rest_framework.response import Response

from ledger.models import Balance, Posting, Transaction
from tables.models import IdempotencyRecord, PlayerProfile


def assert_error(response: Response, status: int, code: str) -> dict[str, Any]:
    """The response is the API's error body with this status and code; returns its ``details``."""
    assert response.status_code == status, (response.status_code, response.content)
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message", "details"}, body
    assert body["error"]["code"] == code, body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    assert isinstance(body["error"]["details"], dict)
    return body["error"]["details"]


def field_errors(response: Response) -> dict[str, Any]:
    """The ``details.fields`` of a 400 ``invalid_request``."""
    return assert_error(response, 400, "invalid_request")["fields"]


def ledger_state() -> dict[str, Any]:
    """Everything a refused request must leave unchanged."""
    return {
        "transactions": Transaction.objects.count(),
        "postings": Posting.objects.count(),
        "posting_sum": Posting.objects.aggregate(total=Sum("amount"))["total"],
        "balances": dict(Balance.objects.values_list("account_id", "balance")),
        "profiles": dict(PlayerProfile.objects.values_list("user_id", "client_seed")),
        "users": get_user_model().objects.count(),
        "idempotency_records": IdempotencyRecord.objects.count(),
    }
