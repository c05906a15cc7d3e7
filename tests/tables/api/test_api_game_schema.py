"""The game endpoints in the OpenAPI schema: bodies described, every error code listed under its status."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.django_db


def codes(operation: dict[str, Any]) -> dict[str, str]:
    return {s: r["description"] for s, r in operation["responses"].items() if int(s) >= 400}


@pytest.mark.parametrize(
    ("path", "method", "success", "expected"),
    [
        (
            "/api/v1/tables",
            "post",
            "201",
            {"400": ["invalid_request"], "401": [], "403": ["forbidden"], "409": ["idempotency_conflict"]},
        ),
        ("/api/v1/tables", "get", "200", {"401": [], "404": ["not_found"]}),
        ("/api/v1/tables/{table_id}", "get", "200", {"401": [], "404": ["not_found"]}),
        (
            "/api/v1/tables/{table_id}/seats",
            "post",
            "201",
            {
                "400": [],
                "401": [],
                "404": [],
                "409": [
                    "seat_taken",
                    "table_full",
                    "already_seated",
                    "insufficient_funds",
                    "seat_limit",
                    "idempotency_conflict",
                ],
            },
        ),
        ("/api/v1/tables/{table_id}/seats/me", "delete", "200", {"401": [], "404": [], "409": ["illegal_action"]}),
        (
            "/api/v1/tables/{table_id}/actions",
            "post",
            "200",
            {
                "400": ["invalid_request", "bet_out_of_limits"],
                "401": [],
                "404": ["not_found"],
                "409": [
                    "not_your_turn",
                    "wrong_phase",
                    "illegal_action",
                    "insufficient_funds",
                    "bank_cannot_cover",
                    "stale_version",
                    "idempotency_conflict",
                ],
            },
        ),
        ("/api/v1/tables/{table_id}/events", "get", "200", {"400": ["invalid_request"], "401": [], "404": []}),
        ("/api/v1/hands/{hand_id}", "get", "200", {"401": [], "403": ["forbidden"], "404": []}),
        ("/api/v1/hands/{hand_id}/verify", "get", "200", {"401": [], "403": [], "404": [], "409": ["wrong_phase"]}),
        ("/api/v1/hands/{hand_id}/disputes", "post", "201", {"400": [], "401": [], "403": [], "404": [], "409": []}),
    ],
)
def test_each_game_operation_describes_its_bodies_and_errors(schema, path, method, success, expected):
    operation = schema["paths"][path][method]
    assert "$ref" in operation["responses"][success]["content"]["application/json"]["schema"]
    if method == "post":
        assert "$ref" in operation["requestBody"]["content"]["application/json"]["schema"]
    described = codes(operation)
    assert set(expected) <= set(described), (path, method, described)
    for status, names in expected.items():
        for name in names:
            assert f"`{name}`" in described[status], (path, method, status, name)


def test_the_table_view_component_has_the_contract_fields(schema):
    view = schema["components"]["schemas"]["TableView"]["properties"]
    assert {"id", "name", "preset", "rules", "version", "phase", "seats", "hand", "you"} <= set(view)
    history = schema["components"]["schemas"]["HandHistory"]["properties"]
    assert {"server_seed", "client_seed", "nonce", "deck", "deals", "actions", "results", "ledger"} <= set(history)
