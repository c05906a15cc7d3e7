"""Thin views of a table's endpoints (the lobby, a table, its seats, its actions, its events feed): validate,
one service or selector call, present. A hand's endpoints are :mod:`tables.api.hand_views`; the signed
checkpoints and the signing keys, :mod:`tables.api.fairness_views`.

Every refusal is raised (a domain error with its code) and mapped by the one exception handler; every POST is
``@idempotent`` and hands its ``Idempotency-Key`` down to the table services. What a caller may see is decided
by the core's viewer projection (see :mod:`tables.selectors` and :mod:`tables.api.presenters`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec
from django.core.handlers.asgi import ASGIRequest
from django.db.models import QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.permissions import BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from kit.idempotency import idempotency_key, idempotent
from kit.pagination import ApiPagination
from kit.permissions import CanCreateTables
from kit.schema import api_errors
from responsible.account import AccountState
from responsible.clock import now_ms
from responsible.selectors import table_limits
from rules import ActionRequest, action_body
from tables import feed, selectors, services
from tables.api import presenters, records
from tables.api import serializers as io
from tables.api.openapi import body_serializer, published, record_serializer
from tables.models import Table
from tables.table_spec import TableSpec
from tables.worth import worth_of

ACTION_ERRORS = (
    "not_found",
    "not_seated",
    "bet_out_of_limits",
    "not_your_turn",
    "wrong_phase",
    "illegal_action",
    "insufficient_funds",
    "bank_cannot_cover",
    "stale_version",
)
MAX_WAIT_S = 30
TABLE_ID = OpenApiParameter("table_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The table's id.")


class TableListView(generics.ListAPIView):
    """``GET /tables`` (the lobby) and ``POST /tables`` (staff)."""

    serializer_class = record_serializer(records.LobbyTable)
    pagination_class = ApiPagination

    def get_permissions(self) -> list[BasePermission]:
        if self.request is not None and self.request.method == "POST":
            return [CanCreateTables()]
        return [IsAuthenticated()]

    def get_queryset(self) -> QuerySet[Table]:
        return selectors.lobby()

    @extend_schema(
        operation_id="tables_list",
        summary="The lobby: every table, oldest first",
        description="Each row carries the table's `rtp` (v1.3), the same record as the table view's.",
    )
    @api_errors("not_found")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        rows = presenters.present_lobby(list(page if page is not None else self.get_queryset()))
        body = [published(row) for row in rows]
        return self.get_paginated_response(body) if page is not None else Response(body)

    @extend_schema(
        operation_id="tables_create",
        summary="Create a table (staff)",
        description=(
            "The body of API.md. The preset, its overrides and the limits are validated together by the rules "
            "core; an invalid combination is 400 `invalid_request` naming the field (a toggle under `rules`). "
            "Answers the table as you see it."
        ),
        request=io.TableCreateInput,
        responses={201: record_serializer(records.TableView)},
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = io.TableCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        table = services.table_create(
            operator=request.user,
            name=data.validated_data["name"],
            spec=TableSpec.from_data(data.validated_data),
            idempotency_key=idempotency_key(request),
        )
        read = selectors.table_read(table_id=table.pk, user=request.user)
        body = presenters.present_table(read, your_limits(request.user, read.account))
        return Response(published(body), status=status.HTTP_201_CREATED)


class TableRtpView(APIView):
    """``POST /tables/rtp`` (staff, v1.3): what a table card would return, without creating anything."""

    permission_classes = [CanCreateTables]

    @extend_schema(
        operation_id="tables_rtp",
        summary="Price a table card without creating it (staff)",
        description=(
            "The body of `POST /tables`, validated the same way (400 `invalid_request` naming the field); answers "
            "`{rtp}` as the table would show it. Creates nothing and refuses nothing else: a house-banked card "
            "outside the casino's limits is priced here and refused (`rules_refused`) only by `POST /tables`. At a "
            "player bank `flat` is null until the rule set's simulation has finished (it is started by this call)."
        ),
        request=io.TableCreateInput,
        responses={200: record_serializer(records.TableRtp)},
    )
    @api_errors("invalid_request")
    @idempotent
    def post(self, request: Request) -> Response:
        data = io.TableCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        config = TableSpec.from_data(data.validated_data).config()
        return Response(published(records.TableRtp(rtp=presenters.present_rtp(worth_of(config)))))


def your_limits(user: Any, account: AccountState | None = None) -> records.YourLimits:
    """The table view's ``you.limits`` (API.md v1.2 responsible gaming): remaining loss, remaining session
    seconds, and whether a reality check is due (``account``: the user's account state, if already read)."""
    return msgspec.convert(table_limits(int(user.pk), now_ms=now_ms(), account=account), records.YourLimits)


class TableDetailView(APIView):
    @extend_schema(
        operation_id="tables_view",
        parameters=[TABLE_ID],
        summary="The table as you may see it",
        description=(
            "Seated players see their own face-down cards; nobody sees another player's face-down card (the "
            "banker's included), an undealt card or the server seed before the hand is settled. `you` lists "
            "your seat, balance and the actions you may send now."
        ),
        responses={200: record_serializer(records.TableView)},
    )
    @api_errors("not_found")
    def get(self, request: Request, table_id: int) -> Response:
        read = selectors.table_read(table_id=table_id, user=request.user)
        return Response(published(presenters.present_table(read, your_limits(request.user, read.account))))


class SeatsView(APIView):
    @extend_schema(
        operation_id="tables_sit",
        parameters=[TABLE_ID],
        summary="Take a seat",
        description=(
            "The lowest free seat unless `seat` is given. Answers the table as you now see it and the events "
            "your request appended. A seat past the table's `max_seats` is 404 `not_found`. Sitting needs the "
            "table's `min_bet` in the wallet (409 `insufficient_funds`); an account holds at most a few seats over "
            "all tables (setting `SEATS_PER_ACCOUNT`, 4; 409 `seat_limit`). A seat that takes part in no hand for "
            "a while is released by the server (`SeatLeft` with reason `idle`)."
        ),
        request=io.SeatInput,
        responses={201: record_serializer(records.TableActionResponse)},
    )
    @api_errors(
        "not_found", "seat_taken", "table_full", "already_seated", "illegal_action", "insufficient_funds", "seat_limit"
    )
    @idempotent
    def post(self, request: Request, table_id: int) -> Response:
        data = io.SeatInput(data=request.data)
        data.is_valid(raise_exception=True)
        outcome = services.table_sit(
            table_id=table_id,
            user=request.user,
            seat=data.validated_data.get("seat"),
            idempotency_key=idempotency_key(request),
        )
        read = selectors.outcome_read(outcome=outcome, user=request.user)
        limits = your_limits(request.user, outcome.actor_account)
        return Response(published(presenters.present_outcome(read, limits)), status=status.HTTP_201_CREATED)


class MySeatView(APIView):
    @extend_schema(
        operation_id="tables_leave",
        parameters=[TABLE_ID],
        summary="Leave the table",
        description=(
            "At once between hands; during a hand you take part in, after it (`leaving` is set on your seat). "
            "409 `not_seated` if you are not seated (404 `not_found`: no such table)."
        ),
        responses={200: record_serializer(records.TableActionResponse)},
    )
    @api_errors("not_found", "not_seated", "illegal_action")
    def delete(self, request: Request, table_id: int) -> Response:
        outcome = services.table_leave(table_id=table_id, user=request.user)
        read = selectors.outcome_read(outcome=outcome, user=request.user)
        limits = your_limits(request.user, outcome.actor_account)
        return Response(published(presenters.present_outcome(read, limits)))


class ActionsView(APIView):
    @extend_schema(
        operation_id="tables_act",
        parameters=[TABLE_ID],
        summary="Play: bet, hit, stand, ...",
        description=(
            "One action of API.md. `you.legal_actions` of the table view lists what you may send now. "
            "Arguments an action does not take are 400 naming them; a stake outside the table's limits is 400 "
            "`bet_out_of_limits`; `expected_version` other than the table's is 409 `stale_version`. Answers "
            "the table after the action and the events it appended, as you may see them. A player who is not "
            "seated gets 409 `not_seated`; a hand index you do not hold is 409 `illegal_action`, one beyond "
            "what the table allows a punter to hold is 400 `invalid_request`."
        ),
        request=body_serializer("TableActionRequest", ActionRequest),
        responses={200: record_serializer(records.TableActionResponse)},
    )
    @api_errors(*ACTION_ERRORS)
    @idempotent
    def post(self, request: Request, table_id: int) -> Response:
        body = action_body(request.data)  # the one schema of an action body (rules.actions)
        outcome = services.table_play(
            table_id=table_id, user=request.user, body=body, idempotency_key=idempotency_key(request)
        )
        read = selectors.outcome_read(outcome=outcome, user=request.user)
        limits = your_limits(request.user, outcome.actor_account)
        return Response(published(presenters.present_outcome(read, limits)))


class EventsQuery(serializers.Serializer):
    after = serializers.IntegerField(
        required=False, default=0, min_value=0, max_value=2**31 - 1, help_text="The last seq you have (default 0)."
    )
    wait = serializers.IntegerField(
        required=False,
        default=0,
        min_value=0,
        max_value=MAX_WAIT_S,
        help_text="Seconds to wait for news, 0-30 (default 0).",
    )


@dataclass(frozen=True, slots=True)
class LongPoll:
    """What the async side needs to wait for a feed that had nothing new (``tables.live.longpoll``)."""

    table_id: int
    user: Any
    after: int
    wait: int


class EventsView(APIView):
    """The feed, read once. Served by the ASGI process through :func:`tables.live.longpoll.events_view`, which
    waits when this read found nothing; a WSGI server (gunicorn) answers at once: no wait holds its threads."""

    @extend_schema(
        operation_id="tables_events",
        summary="The table's events after a position (long-poll)",
        description=(
            "Events with `seq > after`, as you may see them, at most 500 per answer. With `wait` (0-30 s) and "
            "nothing new yet, the answer comes as soon as the table's next event commits, or after `wait` "
            "seconds with no events. Ask again with `after=last_seq`. Waits are served by the live (ASGI) "
            "server; a user holds at most `LIVE_MAX_OPEN_WAITS` (8) open waits and sockets at once, beyond "
            "which a wait is 429 `throttled`. The REST server answers a wait at once."
        ),
        parameters=[TABLE_ID, EventsQuery],
        responses={200: record_serializer(records.TableEvents)},
    )
    @api_errors("invalid_request", "not_found", "throttled")
    def get(self, request: Request, table_id: int) -> Response:
        query = EventsQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        after, wait = query.validated_data["after"], query.validated_data["wait"]
        body = feed.page(table_id, request.user, after)
        response = Response(body)
        if wait and not body["events"] and isinstance(request._request, ASGIRequest):
            response.long_poll = LongPoll(table_id, request.user, after, wait)  # type: ignore[attr-defined]
            selectors.release_connection()
        return response
