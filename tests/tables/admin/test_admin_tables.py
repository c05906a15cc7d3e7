"""Tables in the admin: created through the service with a preset and overrides (validated like the API),
renamed (nothing else changes), shown with resolved rules, seats, phase and recent hands."""

from __future__ import annotations

import json

import pytest
from django.contrib.admin.models import ADDITION, CHANGE, LogEntry

from tables.api.serializers import TableCreateInput
from tables.models import Event, Table
from tables.store import load_stream

pytestmark = pytest.mark.django_db

BASE = {
    "name": "Sala Napoli",
    "preset": "italian",
    "bank": "player",
    "min_bet": "5",
    "max_bet": "50",
    "max_seats": "6",
    "fixed_stake": "",
    "turn_timeout_s": "20",
    "betting_timeout_s": "25",
}


def _body(**changes: str) -> dict[str, str]:
    return {**BASE, **changes}


def test_an_operator_creates_a_table_with_a_preset_and_overrides(as_operator, operator):
    response = as_operator.post(
        "/admin/tables/table/add/", _body(rule_tie_rule="push", rule_pair7_pays="5", rule_raise_on_draw="true")
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    table = Table.objects.get(name="Sala Napoli")
    assert table.created_by == operator and table.preset == "italian" and table.max_seats == 6
    created = load_stream(table.pk)[0]
    assert created.type == "TableCreated" and created.metadata["actor_username"] == operator.username
    config = created.data["config"]
    assert config["rules"]["tie_rule"] == "push" and config["rules"]["pair7_pays"] == 5
    assert config["rules"]["raise_on_draw"] is True and config["rules"]["reale"] is True  # the preset's value
    assert (config["turn_timeout_s"], config["betting_timeout_s"]) == (20, 25)
    log = LogEntry.objects.get(action_flag=ADDITION, object_id=str(table.pk))
    assert log.user == operator and "tie_rule" in log.change_message


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"bank": "house", "max_seats": "8"}, "max_seats"),
        ({"preset": "hungarian"}, "fixed_stake"),
        ({"min_bet": "60"}, "max_bet"),
        ({"preset": "classic", "rule_reale_pays": "3"}, "rule_reale_pays"),
        ({"preset": "hungarian", "fixed_stake": "10", "rule_raise_on_draw": "true"}, "rule_raise_on_draw"),
        ({"rule_matta": "13X"}, "rule_matta"),
        ({"bank": "player", "rule_banker_stands_at_hp": "9"}, "rule_banker_stands_at_hp"),
        ({"name": ""}, "name"),
        ({"max_bet": "100001"}, "max_bet"),
    ],
)
def test_the_form_refuses_what_the_api_refuses_naming_the_field(as_operator, changes, field):
    body = _body(**changes)
    response = as_operator.post("/admin/tables/table/add/", body)
    assert response.status_code == 200
    form = response.context["adminform"].form
    assert field in form.errors, form.errors
    assert not Table.objects.exists()
    # the API's input refuses the same body (its own types: integers, rules as a dict)
    api = {k: v for k, v in body.items() if not k.startswith("rule_") and v != ""}
    for key in ("min_bet", "max_bet", "max_seats", "fixed_stake", "turn_timeout_s", "betting_timeout_s"):
        if key in api:
            api[key] = int(api[key])
    rules = {
        k[5:]: json.loads(v) if v in ("true", "false") or v.isdigit() else v
        for k, v in body.items()
        if k.startswith("rule_")
    }
    if rules:
        api["rules"] = rules
    assert not TableCreateInput(data=api).is_valid()


def test_the_table_page_shows_resolved_rules_seats_phase_and_recent_hands(as_operator, played):
    page = as_operator.get(f"/admin/tables/table/{played.table.pk}/change/").content.decode()
    assert "Resolved rules" in page and "bet_timing" in page and "before_deal" in page
    for player in played.players:
        assert player.username in page
    state = played.state()
    assert f"{state.phase} (version {state.version})" in page
    for hand in played.settled:
        assert f"/admin/tables/hand/{hand.pk}/change/" in page
    assert "fixed by its first event" in page


def test_renaming_changes_only_the_name_and_is_logged(as_operator, operator, played):
    table = played.table
    before = Table.objects.values().get(pk=table.pk)
    events = Event.objects.filter(table=table).count()
    response = as_operator.post(f"/admin/tables/table/{table.pk}/change/", {"name": "Sala Roma", "preset": "spanish"})
    assert response.status_code == 302
    after = Table.objects.values().get(pk=table.pk)
    assert after["name"] == "Sala Roma"
    assert {k: v for k, v in after.items() if k != "name"} == {k: v for k, v in before.items() if k != "name"}
    assert Event.objects.filter(table=table).count() == events
    log = LogEntry.objects.get(action_flag=CHANGE, object_id=str(table.pk))
    assert log.user == operator and "Name" in log.get_change_message()


def test_the_table_list_shows_the_lobby(as_auditor, played):
    page = as_auditor.get("/admin/tables/table/?preset=classic").content.decode()
    assert played.table.name in page and "5-50" in page
