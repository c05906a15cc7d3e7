"""The published schema of every record-backed answer is its record's (tables/api/records.py): the components are
generated from the records the presenters build, so the schema and the answers cannot drift apart."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from tables.api import records
from tables.api.openapi import openapi_30, record_schema

pytestmark = pytest.mark.django_db

RECORD_ANSWERS = [
    ("/api/v1/tables", "post", "201", records.TableView),
    ("/api/v1/tables/{table_id}", "get", "200", records.TableView),
    ("/api/v1/tables/{table_id}/seats", "post", "201", records.TableActionResponse),
    ("/api/v1/tables/{table_id}/seats/me", "delete", "200", records.TableActionResponse),
    ("/api/v1/tables/{table_id}/actions", "post", "200", records.TableActionResponse),
    ("/api/v1/tables/{table_id}/events", "get", "200", records.TableEvents),
    ("/api/v1/hands/{hand_id}", "get", "200", records.HandHistory),
    ("/api/v1/hands/{hand_id}/export", "get", "200", records.HandExport),
    ("/api/v1/hands/{hand_id}/verify", "get", "200", records.HandVerification),
    ("/api/v1/hands/{hand_id}/disputes", "post", "201", records.Dispute),
    ("/api/v1/fairness/public-key", "get", "200", records.FairnessPublicKey),
]
RECORD_PAGES = [
    ("/api/v1/tables", records.LobbyTable),
    ("/api/v1/tables/{table_id}/checkpoints", records.Checkpoint),
]


def _answer(schema: dict[str, Any], path: str, method: str, status: str) -> dict[str, Any]:
    return schema["paths"][path][method]["responses"][status]["content"]["application/json"]["schema"]


@pytest.mark.parametrize(("path", "method", "status", "record"), RECORD_ANSWERS)
def test_a_record_backed_answer_is_described_by_exactly_its_record(schema, path, method, status, record):
    assert _answer(schema, path, method, status) == {"$ref": f"#/components/schemas/{record.__name__}"}
    published = schema["components"]["schemas"]
    for name, component in record_schema(record).items():
        assert published[name] == component, name


@pytest.mark.parametrize(("path", "record"), RECORD_PAGES)
def test_a_page_lists_its_record(schema, path, record):
    page = _answer(schema, path, "get", "200")["$ref"].rsplit("/", 1)[1]
    items = schema["components"]["schemas"][page]["properties"]["results"]["items"]
    assert items == {"$ref": f"#/components/schemas/{record.__name__}"}
    assert schema["components"]["schemas"][record.__name__] == record_schema(record)[record.__name__]


def test_the_core_records_the_api_shows_as_they_are_keep_their_help_texts(schema):
    published = schema["components"]["schemas"]
    assert published["CardView"]["properties"]["code"]["description"].startswith("Such as 12O")
    assert published["HandView"]["properties"]["status"]["description"] == (
        "waiting, playing, stood, bust, closed or settled."
    )
    assert published["CurrentHand"]["properties"]["participants"]["items"] == {
        "$ref": "#/components/schemas/HandParticipant"
    }


class Inner(msgspec.Struct):
    a: int


class Outer(msgspec.Struct):
    maybe: int | None
    inner: Inner | None


def test_null_alternatives_become_openapi_30_nullable():
    _, components = msgspec.json.schema_components([Outer])
    converted = openapi_30(components["Outer"])["properties"]
    assert converted["maybe"] == {"type": "integer", "nullable": True}
    assert converted["inner"] == {"allOf": [{"$ref": "#/$defs/Inner"}], "nullable": True}
