"""Responsible gaming (API.md v1.2): ``/me/limits``, ``/me/limits/requests/{id}/confirm``,
``/me/reality-check``, ``/me/exclusion`` and ``/me/activity``. Thin views: one service or selector each."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from kit.api_errors import invalid_field
from kit.idempotency import idempotent
from kit.schema import api_errors
from kit.serializers import MAX_CHIP_AMOUNT, StrictCharField, StrictIntegerField, StrictSerializer
from responsible import services
from responsible.clock import now_ms
from responsible.selectors import limits_overview, play_totals
from tables.seat_release import release_seats

ACTIVITY_DAYS = 366


class LimitRowSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text="deposit, loss, stake or session.")
    period = serializers.CharField(allow_null=True, help_text="day, week or month (rolling); null for stake, session.")
    amount = serializers.IntegerField(help_text="Chips, or minutes for session.")
    used = serializers.IntegerField(allow_null=True, help_text="Loss: charged so far, chips at risk included.")
    remaining = serializers.IntegerField(allow_null=True)

    class Meta:
        ref_name = "LimitRow"


class LimitRequestRowSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    period = serializers.CharField(allow_null=True)
    amount = serializers.IntegerField(allow_null=True, help_text="null: the limit removed.")
    confirmable_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()

    class Meta:
        ref_name = "LimitRequestRow"


class ExclusionSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text="break or self_exclusion.")
    until = serializers.DateTimeField()

    class Meta:
        ref_name = "Exclusion"


class LimitsSerializer(serializers.Serializer):
    limits = LimitRowSerializer(many=True)
    requests = LimitRequestRowSerializer(many=True)
    reality_check_minutes = serializers.IntegerField()
    reality_check_due = serializers.JSONField(help_text="false, or {elapsed_s, wagered, net}.")
    exclusion = ExclusionSerializer(allow_null=True)

    class Meta:
        ref_name = "Limits"


class RealityCheckSerializer(serializers.Serializer):
    acknowledged = serializers.BooleanField(help_text="false: none was due.")
    elapsed_s = serializers.IntegerField(required=False)
    wagered = serializers.IntegerField(required=False)
    net = serializers.IntegerField(required=False)

    class Meta:
        ref_name = "RealityCheck"


class ActivitySerializer(serializers.Serializer):
    from_ = serializers.DateTimeField()
    to = serializers.DateTimeField()
    stakes = serializers.IntegerField()
    wins = serializers.IntegerField()
    net = serializers.IntegerField()
    deposits = serializers.IntegerField()
    withdrawals = serializers.IntegerField()
    net_deposits = serializers.IntegerField()

    class Meta:
        ref_name = "Activity"

    def get_fields(self) -> dict[str, Any]:
        fields = super().get_fields()
        fields["from"] = fields.pop("from_")
        return fields


class LimitsView(APIView):
    class InputSerializer(StrictSerializer):
        kind = StrictCharField(help_text="deposit, loss, stake, session, or reality_check (its interval).")
        period = StrictCharField(required=False, allow_null=True, help_text="day, week or month: deposit and loss.")
        amount = StrictIntegerField(
            min_value=0,
            max_value=MAX_CHIP_AMOUNT,
            allow_null=True,
            help_text="Chips (deposit, loss, stake), minutes (session, reality_check); null removes the limit.",
        )

        class Meta:
            ref_name = "LimitRequest"

    @extend_schema(
        operation_id="me_limits", summary="Your responsible-gaming limits", responses={200: LimitsSerializer}
    )
    def get(self, request: Request) -> Response:
        return Response(limits_overview(request.user.pk, now_ms=now_ms()))

    @extend_schema(
        operation_id="me_limits_set",
        summary="Set a limit",
        description=(
            "Lowering a limit (or setting one where there was none) takes effect at once (200). Raising or "
            "removing one creates a request (202) confirmable after the cooling-off and lapsing after 7 days."
        ),
        request=InputSerializer,
        responses={200: LimitsSerializer, 202: LimitsSerializer},
    )
    @api_errors("invalid_request")
    @idempotent
    def put(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        done = services.limit_set(
            user=request.user, kind=data["kind"], period=data.get("period"), amount=data["amount"]
        )
        body = limits_overview(request.user.pk, now_ms=now_ms())
        return Response(body, status=status.HTTP_200_OK if done["applied"] else status.HTTP_202_ACCEPTED)


class NoBody(StrictSerializer):
    """No fields: an empty body or ``{}``."""

    class Meta:
        ref_name = "EmptyRequest"


class LimitConfirmView(APIView):
    @extend_schema(
        operation_id="me_limits_confirm",
        summary="Confirm a raise after its cooling-off",
        request=NoBody,
        description="Before `confirmable_at` this is 409 `illegal_action`; a lapsed or unknown request is 404.",
        responses={200: LimitsSerializer},
    )
    @api_errors("not_found", "illegal_action")
    @idempotent
    def post(self, request: Request, request_id: int) -> Response:
        NoBody(data=request.data or {}).is_valid(raise_exception=True)
        services.limit_confirm(user=request.user, request_id=request_id)
        return Response(limits_overview(request.user.pk, now_ms=now_ms()))


class RealityCheckView(APIView):
    @extend_schema(
        operation_id="me_reality_check",
        summary="Acknowledge a due reality check",
        request=NoBody,
        responses={200: RealityCheckSerializer},
    )
    @idempotent
    def post(self, request: Request) -> Response:
        NoBody(data=request.data or {}).is_valid(raise_exception=True)
        return Response(services.reality_check_acknowledge(user=request.user))


class ExclusionView(APIView):
    class InputSerializer(StrictSerializer):
        kind = serializers.ChoiceField(choices=["break", "self_exclusion"])
        days = StrictIntegerField(help_text="break: 1, 7, 30, 60, 90; self_exclusion: 180, 365, 1825.")

        class Meta:
            ref_name = "ExclusionRequest"

    @extend_schema(
        operation_id="me_exclusion",
        summary="Take a break or self-exclude",
        description=(
            "At once: every token of the account is revoked, its seats are released (after the hand in play) "
            "and sign-in is refused with 403 `excluded` until the end. It cannot be shortened."
        ),
        request=InputSerializer,
        responses={201: ExclusionSerializer},
    )
    @idempotent
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        result = services.exclusion_start(user=request.user, kind=data["kind"], days=data["days"])
        release_seats(user_id=request.user.pk)  # every table he sits at (after the hand in play)
        return Response(result, status=status.HTTP_201_CREATED)


def _date(request: Request, name: str) -> datetime | None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return None
    try:
        value = datetime.fromisoformat(raw)
    except ValueError:
        raise invalid_field(name, f"{name} is an ISO 8601 date or time.") from None
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


class ActivityView(APIView):
    @extend_schema(
        operation_id="me_activity",
        summary="Your play and cashier history over a period",
        parameters=[
            OpenApiParameter("from", str, description="ISO 8601; default 30 days ago; at most 12 months back."),
            OpenApiParameter("to", str, description="ISO 8601; default now."),
        ],
        responses={200: ActivitySerializer},
    )
    @api_errors("invalid_request")
    def get(self, request: Request) -> Response:
        now = datetime.fromtimestamp(now_ms() / 1000, tz=UTC)
        start = _date(request, "from") or now - timedelta(days=30)
        end = _date(request, "to") or now
        if start < now - timedelta(days=ACTIVITY_DAYS):
            raise invalid_field("from", "Activity goes back at most 12 months.")
        if end < start:
            raise invalid_field("to", "to is before from.")
        totals: dict[str, Any] = play_totals(request.user.pk, start=start, end=end)
        return Response({"from": start.isoformat(), "to": end.isoformat(), **totals})
