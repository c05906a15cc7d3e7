"""The published schema of every record-backed answer is its record's (tables/api/records.py): the components are
generated from the records the presenters build, so the schema and the answers cannot drift apart."""

from __future__ import annotations

import json
import random
from typing import Any

import msgspec
import pytest
from django.contrib.auth import get_user_model
from rest_framework.renderers import JSONRenderer
from rest_framework.utils.encoders import JSONEncoder

from tables import feed
from tables.api import records
from tables.api.openapi import openapi_30, published, record_schema
from tables.models import Hand
from tests.support.game_helpers import HttpTable, create_table, deposit, ok, register

User = get_user_model()

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


def _exactly(body: Any, record: type[msgspec.Struct]) -> None:
    """``body`` (an answer as JSON) is an instance of ``record`` written out: nothing missing, nothing extra."""
    decoded = msgspec.convert(body, record)  # an extra field is dropped here, so the comparison below fails
    assert json.loads(JSONRenderer().render(published(decoded))) == body


def test_every_answer_over_http_and_the_live_feed_is_exactly_its_record(as_staff, anon):
    table = create_table(as_staff, "classic", bank="house")
    players = []
    for n in range(2):
        player = register(anon, f"rec{n}")
        deposit(as_staff, player, 2000)
        players.append(player)
    game = HttpTable(table["id"], players, random.Random(7))
    game.sit_all()
    game.play_hands(2)
    viewer = players[0]
    _exactly(viewer.view(table["id"]), records.TableView)
    _exactly(game.steps[-1].response, records.TableActionResponse)
    feed_page = ok(viewer.client.get(f"/api/v1/tables/{table['id']}/events?after=0"))
    _exactly(feed_page, records.TableEvents)
    # the WebSocket's events frame is ``{"type": "events", **censor(...)}``: the same record
    live = json.loads(
        json.dumps(feed.page(table["id"], User.objects.get(username=viewer.username), 0), cls=JSONEncoder)
    )
    assert live == feed_page
    hand = Hand.objects.filter(table_id=table["id"], status="settled").order_by("number").first()
    assert hand is not None
    _exactly(ok(viewer.client.get(f"/api/v1/hands/{hand.pk}")), records.HandHistory)
    _exactly(ok(viewer.client.get(f"/api/v1/hands/{hand.pk}/export")), records.HandExport)
    _exactly(ok(viewer.client.get(f"/api/v1/hands/{hand.pk}/verify")), records.HandVerification)
    _exactly(ok(anon.get("/api/v1/fairness/public-key")), records.FairnessPublicKey)
    for row in ok(viewer.client.get("/api/v1/tables"))["results"]:
        _exactly(row, records.LobbyTable)
