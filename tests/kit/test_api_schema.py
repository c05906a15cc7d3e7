"""The OpenAPI schema: generated without warnings, every operation with its bodies and its error responses."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.django_db

ERROR_REF = "#/components/schemas/ErrorResponse"


def operations(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path, method, operation)
        for path, item in schema["paths"].items()
        if path.startswith("/api/v1/")
        for method, operation in item.items()
    ]


def errors_of(operation: dict[str, Any]) -> dict[str, str]:
    return {
        status: response["description"] for status, response in operation["responses"].items() if int(status) >= 400
    }


def test_the_schema_generates_and_validates_without_warnings(schema):
    assert schema["openapi"].startswith("3.")
    assert "ErrorResponse" in schema["components"]["schemas"]


def test_the_error_component_is_the_api_error_body(schema):
    components = schema["components"]["schemas"]
    assert components["ErrorResponse"]["required"] == ["error"]
    assert components["ErrorResponse"]["properties"]["error"]["$ref"] == "#/components/schemas/Error"
    assert set(components["Error"]["required"]) == {"code", "message", "details"}


def test_every_error_response_has_the_error_body(schema):
    for path, method, operation in operations(schema):
        assert errors_of(operation), (method, path)
        for status, response in operation["responses"].items():
            if int(status) >= 400:
                assert response["content"]["application/json"]["schema"]["$ref"] == ERROR_REF, (method, path, status)


# POSTs that take no body (an empty one or {})
BODYLESS = {"/api/v1/auth/logout", "/api/v1/me/limits/requests/{request_id}/confirm", "/api/v1/me/reality-check"}


def test_every_success_response_and_request_body_is_described(schema):
    for path, method, operation in operations(schema):
        successes = [r for s, r in operation["responses"].items() if int(s) < 300]
        assert successes, (method, path)
        assert all("content" in r for s, r in operation["responses"].items() if int(s) < 300 and s != "204")
        if method in {"post", "put", "patch"} and path not in BODYLESS:
            assert "$ref" in operation["requestBody"]["content"]["application/json"]["schema"], (method, path)


def test_every_post_documents_the_idempotency_key(schema):
    for path, method, operation in operations(schema):
        if method == "post":
            headers = [p["name"] for p in operation.get("parameters", []) if p["in"] == "header"]
            assert "Idempotency-Key" in headers, path


@pytest.mark.parametrize(
    ("path", "method", "expected"),
    [
        ("/api/v1/auth/register", "post", {"400": ["invalid_request"], "403": ["forbidden"], "429": ["throttled"]}),
        ("/api/v1/auth/token", "post", {"400": ["invalid_request"], "403": ["excluded"], "429": ["throttled"]}),
        ("/api/v1/me", "get", {"401": ["not_authenticated"], "429": ["throttled"]}),
        (
            "/api/v1/cashier/withdrawals",
            "post",
            {
                "400": ["invalid_request"],
                "401": ["not_authenticated"],
                "403": ["forbidden"],
                "404": ["not_found"],
                "409": ["insufficient_funds", "idempotency_conflict"],
                "429": ["throttled"],
            },
        ),
        ("/api/v1/me/ledger", "get", {"401": ["not_authenticated"], "404": ["not_found"], "429": ["throttled"]}),
    ],
)
def test_each_operation_lists_the_codes_it_can_return(schema, path, method, expected):
    described = errors_of(schema["paths"][path][method])
    assert set(described) == set(expected)
    for status, codes in expected.items():
        for code in codes:
            assert f"`{code}`" in described[status], (status, code)


def test_the_list_endpoints_are_paginated(schema):
    for path in ("/api/v1/me/ledger", "/api/v1/me/hands"):
        operation = schema["paths"][path]["get"]
        assert {p["name"] for p in operation["parameters"]} >= {"page", "page_size"}
        ref = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
        component = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]
        assert set(component["properties"]) == {"count", "next", "previous", "results"}
