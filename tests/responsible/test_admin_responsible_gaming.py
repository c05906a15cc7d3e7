"""The admin's responsible-gaming page: what it shows, staff lowering a limit with a reason (audited), and the
raise, removal or silent change it refuses."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth import get_user_model

from responsible import services as rg
from responsible.models import AccountEvent
from responsible.store import read_account

pytestmark = pytest.mark.django_db


@pytest.fixture
def gambler(db: Any) -> Any:
    user = get_user_model().objects.create_user(username="gambler", password="correct horse 42")
    rg.limit_set(user=user, kind="loss", period="week", amount=200)
    rg.limit_set(user=user, kind="loss", period="week", amount=900)  # a pending raise
    return user


def _lower(client: Any, player: Any, **fields: Any) -> Any:
    body = {"kind": "loss", "period": "week", "amount": 100, "reason": "the player asked by phone", **fields}
    return client.post(f"/admin/responsible/gamingaccount/{player.pk}/lower/", body)


def test_the_page_shows_limits_requests_and_history(as_auditor: Any, gambler: Any) -> None:
    html = as_auditor.get(f"/admin/responsible/gamingaccount/{gambler.pk}/change/").content.decode()
    assert 'id="rg-limits"' in html and ">200<" in html
    assert 'id="rg-requests"' in html and ">900<" in html
    assert "limit_raise_requested" in html
    assert 'id="rg-lower"' not in html  # an auditor reads only


def test_an_operator_lowers_a_limit_with_a_reason_and_it_is_audited(
    as_operator: Any, operator: Any, gambler: Any
) -> None:
    response = _lower(as_operator, gambler)
    assert response.status_code == 302, response.content[:500]
    assert read_account(gambler.pk).limits["loss:week"] == 100
    event = AccountEvent.objects.filter(user=gambler).order_by("-version").first()
    assert event is not None and (event.actor_id, event.reason) == (operator.pk, "the player asked by phone")
    assert LogEntry.objects.filter(user=operator, action_flag=CHANGE, change_message__contains="to 100").exists()


@pytest.mark.parametrize(
    "fields", [{"amount": 201}, {"amount": 200}, {"reason": ""}, {"kind": "stake", "period": "week"}]
)
def test_staff_cannot_raise_keep_or_change_a_limit_without_a_reason(
    as_operator: Any, gambler: Any, fields: Any
) -> None:
    before = AccountEvent.objects.filter(user=gambler).count()
    response = _lower(as_operator, gambler, **fields)
    assert response.status_code == 200  # the page again, with the error
    assert read_account(gambler.pk).limits["loss:week"] == 200
    assert AccountEvent.objects.filter(user=gambler).count() == before


def test_an_auditor_cannot_lower(as_auditor: Any, gambler: Any) -> None:
    assert _lower(as_auditor, gambler).status_code == 403
    assert read_account(gambler.pk).limits["loss:week"] == 200
