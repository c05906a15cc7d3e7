"""Thin views of a hand's endpoints (``/hands/{id}``...): its history, its verification, its export and a
dispute. Participants and staff only; a refusal is raised and mapped by the one exception handler (see
:mod:`tables.api.views`).
"""

from __future__ import annotations

import msgspec
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from gamemath.enums import DisputeStatus
from kit.idempotency import idempotent
from kit.schema import api_errors
from tables import checkpoint_signing, hand_reads
from tables.api import hand_presenters, records
from tables.api import serializers as io
from tables.api.openapi import published, record_serializer
from tables.disputes import hand_dispute_open

HAND_ID = OpenApiParameter("hand_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The hand's id.")


class HandView(APIView):
    @extend_schema(
        operation_id="hands_history",
        parameters=[HAND_ID],
        summary="A hand's full history (participants, staff)",
        description=(
            "Hidden cards, the deck and the server seed only once the hand is settled; a hand in play is shown "
            "as your table view shows it. `actions` are the recorded commands (seat null: the system)."
        ),
        responses={200: record_serializer(records.HandHistory)},
    )
    @api_errors("not_found", "forbidden")
    def get(self, request: Request, hand_id: int) -> Response:
        read = hand_reads.hand_read(hand_id=hand_id, user=request.user)
        return Response(published(hand_presenters.present_history(read)))


class HandVerifyView(APIView):
    @extend_schema(
        operation_id="hands_verify",
        parameters=[HAND_ID],
        summary="Verify a settled hand (participants, staff)",
        description=(
            'Each check is "ok" or what differs: commitment, shuffle, replay, ledger, and (extensions) the '
            "hash chain of the table's events and its signed checkpoints (which version no longer matches). "
            "A hand in play is 409 `wrong_phase`."
        ),
        responses={200: record_serializer(records.HandVerification)},
    )
    @api_errors("not_found", "forbidden", "wrong_phase")
    def get(self, request: Request, hand_id: int) -> Response:
        report = hand_reads.hand_verification(hand_id=hand_id, user=request.user)
        return Response(published(msgspec.convert(report, records.HandVerification)))


class HandExportView(APIView):
    @extend_schema(
        operation_id="hands_export",
        parameters=[HAND_ID],
        summary="Everything needed to check an ended hand offline (participants, staff)",
        description=(
            "One JSON document (`format: sevenhalf-hand-export/1`): the hand's history, every event of the table "
            "from the one before the hand's seed commitment was published through the first signed checkpoint "
            "after the hand (as you may see them, each with `hash` and `prev_hash`; events hashed in form 2 also "
            "carry `hash_form` and `private_sha256`, from which anyone recomputes the hash: docs/fairness.md), "
            "that checkpoint and the one before the hand, and the signing keys. Check it with "
            "`tools/verify_hand.py FILE --public-key KEY`: never trust the keys of the export alone. "
            "A hand in play is 409 `wrong_phase`."
        ),
        responses={200: record_serializer(records.HandExport)},
    )
    @api_errors("not_found", "forbidden", "wrong_phase")
    def get(self, request: Request, hand_id: int) -> Response:
        read = hand_reads.hand_export_read(hand_id=hand_id, user=request.user)
        return Response(published(hand_presenters.present_export(read, checkpoint_signing.public_keys())))


class DisputesView(APIView):
    @extend_schema(
        operation_id="hands_dispute",
        parameters=[HAND_ID],
        summary="Dispute a hand (participants)",
        description="Operators see the dispute in the admin; the hand is marked disputed.",
        request=io.DisputeInput,
        responses={201: record_serializer(records.Dispute)},
    )
    @api_errors("not_found", "forbidden")
    @idempotent
    def post(self, request: Request, hand_id: int) -> Response:
        data = io.DisputeInput(data=request.data)
        data.is_valid(raise_exception=True)
        dispute = hand_dispute_open(hand_id=hand_id, user=request.user, reason=data.validated_data["reason"])
        body = records.Dispute(
            id=dispute.pk,
            hand=dispute.hand_id,
            reason=dispute.reason,
            status=DisputeStatus(dispute.status),
            created_at=dispute.created_at,
        )
        return Response(published(body), status=status.HTTP_201_CREATED)
