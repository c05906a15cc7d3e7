"""``POST /cashier/deposits`` and ``POST /cashier/withdrawals``: staff move chips between the cage and a wallet."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from kit import audit
from kit.api_errors import ApiError
from kit.idempotency import idempotency_key, idempotent
from kit.permissions import CanUseCashier
from kit.schema import api_errors
from kit.serializers import ChipAmountField, StrictCharField, StrictSerializer
from ledger import services as ledger
from ledger.models import Transaction
from responsible import credits
from responsible import services as responsible


def request_cause(request: Request) -> str:
    """The ledger cause of a request: ``request:<user id>:<Idempotency-Key>`` when the client sent one (so a
    repeat can never post twice, even past the API's own idempotency records), else a fresh uuid."""
    key = idempotency_key(request)
    if key is not None:
        return f"request:{request.user.pk}:{key}"
    return f"request:{uuid.uuid4()}"


class CashierEntryInput(StrictSerializer):
    username = StrictCharField(max_length=150, help_text="The player whose wallet is credited or debited.")
    amount = ChipAmountField(help_text="Chips: a positive JSON integer.")
    reference = StrictCharField(max_length=200, help_text="The cashier's reference (receipt, payment id).")

    class Meta:
        ref_name = "CashierEntryRequest"


class CashierEntryOutput(serializers.Serializer):
    transaction_id = serializers.IntegerField()
    balance = serializers.IntegerField(help_text="The player's wallet balance right after this entry.")

    class Meta:
        ref_name = "CashierEntry"


class _CashierView(APIView):
    permission_classes = [CanUseCashier]
    post_entry: Callable[..., Transaction]
    operation: str

    def create_entry(self, request: Request) -> Response:
        serializer = CashierEntryInput(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        player = _player(data["username"])
        entry = self.post_entry(
            user=player,
            amount=data["amount"],
            reference=data["reference"],
            operator=request.user,
            cause=request_cause(request),
        )
        balance = _wallet_balance_after(entry, player)
        audit.log_cashier_entry(  # in the request's transaction: no entry without its audit line
            actor_id=request.user.pk,
            entry=entry,
            operation=self.operation,
            username=player.get_username(),
            amount=data["amount"],
            reference=data["reference"],
            balance=balance,
            via="API",
        )
        out = CashierEntryOutput({"transaction_id": entry.pk, "balance": balance})
        return Response(out.data, status=status.HTTP_201_CREATED)


class PendingCreditOutput(serializers.Serializer):
    pending_credit_id = serializers.IntegerField()
    status = serializers.CharField(help_text="`pending`: a second operator approves or rejects it in the admin.")

    class Meta:
        ref_name = "PendingCredit"


class DepositView(_CashierView):
    post_entry = staticmethod(responsible.deposit)  # within the player's deposit limits
    operation = "deposit"

    @extend_schema(
        operation_id="cashier_deposit",
        summary="Credit chips to a player (staff)",
        description="Chips from the cage into the player's wallet. An unknown username is 404 `not_found`. A deposit "
        "above `CASHIER_SECOND_OPERATOR_ABOVE` chips is not posted: 202 with the credit that waits for a second "
        "operator, who approves or rejects it in the admin (four eyes).",
        request=CashierEntryInput,
        responses={201: CashierEntryOutput, 202: PendingCreditOutput},
    )
    @api_errors("not_found", "limit_reached")
    @idempotent
    def post(self, request: Request) -> Response:
        serializer = CashierEntryInput(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        if not credits.needs_second_operator(data["amount"]):
            return self.create_entry(request)
        pending = credits.request_credit(
            user=_player(data["username"]),
            amount=data["amount"],
            reference=data["reference"],
            operator=request.user,
            cause=request_cause(request),
        )
        out = PendingCreditOutput({"pending_credit_id": pending.pk, "status": pending.status})
        return Response(out.data, status=status.HTTP_202_ACCEPTED)


class WithdrawalView(_CashierView):
    post_entry = staticmethod(ledger.withdraw)
    operation = "withdrawal"

    @extend_schema(
        operation_id="cashier_withdrawal",
        summary="Pay chips out of a player's wallet (staff)",
        description=(
            "Chips from the player's wallet back to the cage; 409 `insufficient_funds` if the wallet holds "
            "less. An unknown username is 404 `not_found`."
        ),
        request=CashierEntryInput,
        responses={201: CashierEntryOutput},
    )
    @api_errors("not_found", "insufficient_funds")
    @idempotent
    def post(self, request: Request) -> Response:
        return self.create_entry(request)


def _player(username: str) -> AbstractBaseUser:
    user_model = get_user_model()
    player = user_model._default_manager.filter(**{user_model.USERNAME_FIELD: username}).first()
    if player is None:
        raise ApiError("not_found", f"No user named {username!r}.", {"field": "username"})
    return player


def _wallet_balance_after(entry: Any, player: AbstractBaseUser) -> int:
    wallet_id = ledger.wallet_for(player).pk
    return next(int(p.balance_after) for p in entry.posted if p.account_id == wallet_id)
