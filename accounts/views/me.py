"""The signed-in player's own resources: ``/me``, ``/me/client-seed``, ``/me/ledger``, ``/me/hands``."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.errors import InvalidField
from accounts.selectors import own_hands, own_postings
from accounts.services import check_client_seed, player_profile, set_client_seed
from kit.pagination import ApiPagination
from kit.schema import api_errors
from kit.serializers import StrictCharField, StrictSerializer
from ledger.models import Posting
from ledger.selectors import ledger_row, wallet_balance
from rules.client_seed import CLIENT_SEED_MAX_LENGTH, CLIENT_SEED_RULE
from tables.models import HandParticipant


class MeView(APIView):
    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        username = serializers.CharField()
        balance = serializers.IntegerField(help_text="Chips in the player's wallet.")
        is_staff = serializers.BooleanField()
        client_seed = serializers.CharField()

        class Meta:
            ref_name = "Me"

    @extend_schema(operation_id="me", summary="The signed-in user", responses={200: OutputSerializer})
    def get(self, request: Request) -> Response:
        user = request.user
        data = {
            "id": user.pk,
            "username": user.get_username(),
            "balance": wallet_balance(user),
            "is_staff": user.is_staff,
            "client_seed": player_profile(user).client_seed,
        }
        return Response(self.OutputSerializer(data).data)


class ClientSeedView(APIView):
    class InputSerializer(StrictSerializer):
        # the bounds come from the core's one client-seed rule (shown in the schema; the rule itself is checked
        # by check_client_seed below)
        client_seed = StrictCharField(
            min_length=1, max_length=CLIENT_SEED_MAX_LENGTH, trim_whitespace=False, help_text=CLIENT_SEED_RULE
        )

        class Meta:
            ref_name = "ClientSeedRequest"

        def validate_client_seed(self, value: str) -> str:
            try:
                return check_client_seed(value)
            except InvalidField as exc:
                raise serializers.ValidationError(exc.message) from exc

    class OutputSerializer(serializers.Serializer):
        client_seed = serializers.CharField()
        tables = serializers.ListField(
            child=serializers.DictField(),
            help_text="v1.3: each table you sit at, with the version at which the seed was set there: keep them "
            "(the reference client's record of your seeds; tools/verify_hand.py --my-seeds).",
        )

        class Meta:
            ref_name = "ClientSeed"

    @extend_schema(
        operation_id="me_client_seed_set",
        summary="Set your client seed",
        description="The seed you contribute to the shuffle of the hands you join from now on.",
        request=InputSerializer,
        responses={200: OutputSerializer},
    )
    def put(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        profile, versions = set_client_seed(request.user, serializer.validated_data["client_seed"])
        tables = [{"table": table, "version": version} for table, version in versions]
        return Response(self.OutputSerializer({"client_seed": profile.client_seed, "tables": tables}).data)


class LedgerRowSerializer(serializers.Serializer):
    transaction_id = serializers.IntegerField()
    at = serializers.DateTimeField()
    kind = serializers.CharField(help_text="deposit, withdrawal, stake_reserve, hand_settlement or correction.")
    amount = serializers.IntegerField(help_text="Signed: chips into (+) or out of (-) the wallet.")
    balance_after = serializers.IntegerField()
    hand_id = serializers.IntegerField(allow_null=True)
    memo = serializers.CharField(allow_blank=True)

    class Meta:
        ref_name = "LedgerRow"

    def to_representation(self, instance: Any) -> Any:
        return super().to_representation(ledger_row(instance) if isinstance(instance, Posting) else instance)


class MyLedgerView(generics.ListAPIView):
    serializer_class = LedgerRowSerializer
    pagination_class = ApiPagination

    def get_queryset(self) -> QuerySet[Posting]:
        return own_postings(self.request.user)

    @extend_schema(operation_id="me_ledger", summary="Your wallet's postings, newest first")
    @api_errors("not_found")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class MyHandSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="hand.id")
    table = serializers.IntegerField(source="hand.table_id")
    number = serializers.IntegerField(source="hand.number", help_text="The hand's number at its table.")
    status = serializers.CharField(source="hand.status", help_text="in_play, settled or abandoned.")
    opened_at = serializers.DateTimeField(source="hand.opened_at")
    settled_at = serializers.DateTimeField(source="hand.settled_at", allow_null=True)
    role = serializers.CharField(help_text="banker or punter.")
    seat = serializers.IntegerField(allow_null=True, help_text="null for the house banker.")
    net = serializers.IntegerField(allow_null=True, help_text="Your net chips over the hand, once settled.")

    class Meta:
        ref_name = "MyHand"


class MyHandsView(generics.ListAPIView):
    serializer_class = MyHandSerializer
    pagination_class = ApiPagination

    def get_queryset(self) -> QuerySet[HandParticipant]:
        return own_hands(self.request.user)

    @extend_schema(operation_id="me_hands", summary="The hands you took part in, newest first")
    @api_errors("not_found")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)
