"""Thin views of what lets anyone check the tables' histories: a table's signed checkpoints and the public
keys that sign them (docs/fairness.md).
"""

from __future__ import annotations

import base64
from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import generics
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from kit.pagination import ApiPagination
from kit.schema import api_errors
from rules import NotFound
from tables import key_service
from tables.api import records
from tables.api import serializers as io
from tables.api.openapi import published, record_serializer
from tables.api.views import TABLE_ID
from tables.models import Checkpoint, Table


class CheckpointsView(generics.ListAPIView):
    """``GET /tables/{id}/checkpoints?after=V``: the table's signed checkpoints, oldest first (paginated)."""

    serializer_class = record_serializer(records.Checkpoint)
    pagination_class = ApiPagination
    permission_classes = [IsAuthenticated]

    def get_queryset(self) -> QuerySet[Checkpoint]:
        query = io.CheckpointsQuery(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        table_id = self.kwargs["table_id"]
        if not Table.objects.filter(pk=table_id).exists():
            raise NotFound(f"there is no table {table_id}", {"table": table_id})
        return Checkpoint.objects.filter(table_id=table_id, version__gt=query.validated_data["after"]).order_by(
            "version"
        )

    @extend_schema(
        operation_id="tables_checkpoints",
        parameters=[TABLE_ID, io.CheckpointsQuery],
        summary="Signed checkpoints of the table's hash chain, oldest first",
        description=(
            'Whenever a hand ends the server signs `f"{table_id}:{version}:{hash}"` (the version and chain hash '
            "of the table's last event) with an Ed25519 key that is not in the database. Archive them: a history "
            "rewritten later no longer matches. Verify with the key of `/fairness/public-key` named by `key_id`."
        ),
    )
    @api_errors("invalid_request", "not_found")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class PublicKeyView(APIView):
    """``GET /fairness/public-key``: the Ed25519 public key(s) that sign checkpoints."""

    permission_classes = [AllowAny]
    authentication_classes: list[Any] = []

    @extend_schema(
        operation_id="fairness_public_key",
        summary="The public key that signs checkpoints (anyone)",
        description=(
            "`public_key` is the current key (base64 of its 32 raw bytes); `keys` lists every key a checkpoint "
            "may name by `key_id`, so checkpoints signed before a rotation still verify, each with `valid_from` "
            "(when it was put in service: first published as the current key or first used to sign, whichever "
            "came first; never null)."
        ),
        responses={200: record_serializer(records.FairnessPublicKey)},
    )
    def get(self, request: Request) -> Response:
        keys = tuple(
            records.FairnessPublicKeyEntry(
                key_id=entry.key.key_id,
                public_key=base64.b64encode(entry.key.raw).decode(),
                valid_from=entry.valid_from,
            )
            for entry in key_service.in_service()
        )
        body = records.FairnessPublicKey(
            algorithm="ed25519", public_key=keys[0].public_key, key_id=keys[0].key_id, keys=keys
        )
        return Response(published(body))
