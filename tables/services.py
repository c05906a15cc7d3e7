"""Services of the tables (HackSoft style: ``<entity>_<action>``, keyword-only, one transaction each).

Every table command goes through :func:`tables.pipeline.execute`.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from tables import pipeline
from tables.models import PlayerProfile, Table, TableSeat
from tables.pipeline import Outcome
from tables.rules import (
    Context,
    CreateTable,
    DomainError,
    LeaveSeat,
    SetClientSeed,
    SitDown,
    TableState,
    Timeout,
    command_for_action,
)


def _uid(user: AbstractBaseUser) -> str:
    return str(user.pk)


def player_client_seed(*, user: AbstractBaseUser) -> str:
    """The player's client seed (a random default is created on first need)."""
    profile, _ = PlayerProfile.objects.get_or_create(user=user, defaults={"client_seed": secrets.token_hex(8)})
    return profile.client_seed


@transaction.atomic
def table_create(
    *,
    operator: AbstractBaseUser | None,
    name: str,
    preset: str,
    rules: Mapping[str, Any] | None = None,
    min_bet: int,
    max_bet: int,
    max_seats: int,
    bank: str,
    fixed_stake: int | None = None,
    turn_timeout_s: int = 30,
    betting_timeout_s: int = 30,
    idempotency_key: str | None = None,
) -> Table:
    """Create a table: its row (the stream) and its first event, TableCreated, with the validated config."""
    table = Table.objects.create(name=name, preset=str(preset)[:20], created_by=operator)

    def build(ctx: Context, state: TableState) -> CreateTable:
        return CreateTable(
            ctx,
            preset=preset,
            overrides=dict(rules or {}),
            min_bet=min_bet,
            max_bet=max_bet,
            max_seats=max_seats,
            bank=bank,
            fixed_stake=fixed_stake,
            turn_timeout_s=turn_timeout_s,
            betting_timeout_s=betting_timeout_s,
        )

    pipeline.execute(
        table_id=table.pk,
        build=build,
        actor_id=operator.pk if operator is not None else None,
        actor_username=operator.get_username() if operator is not None else None,
        idempotency_key=idempotency_key,
    )
    table.refresh_from_db()
    return table


def table_sit(
    *,
    table_id: int,
    user: AbstractBaseUser,
    seat: int | None = None,
    expected_version: int | None = None,
    idempotency_key: str | None = None,
) -> Outcome:
    """Take a seat (the lowest free one when ``seat`` is None)."""
    client_seed = player_client_seed(user=user)
    uid = _uid(user)
    username = user.get_username()

    def build(ctx: Context, state: TableState) -> SitDown:
        return SitDown(ctx, uid, username=username, seat=seat, client_seed=client_seed)

    return pipeline.execute(
        table_id=table_id,
        build=build,
        actor_id=user.pk,
        actor_username=username,
        expected_version=expected_version,
        idempotency_key=idempotency_key,
    )


def table_leave(
    *, table_id: int, user: AbstractBaseUser, expected_version: int | None = None, idempotency_key: str | None = None
) -> Outcome:
    """Leave: at once between hands, else after the current hand."""
    uid = _uid(user)
    return pipeline.execute(
        table_id=table_id,
        build=lambda ctx, state: LeaveSeat(ctx, uid),
        actor_id=user.pk,
        actor_username=user.get_username(),
        expected_version=expected_version,
        idempotency_key=idempotency_key,
    )


def table_act(
    *,
    table_id: int,
    user: AbstractBaseUser,
    action: str,
    args: Mapping[str, Any] | None = None,
    expected_version: int | None = None,
    idempotency_key: str | None = None,
    request_id: str | None = None,
) -> Outcome:
    """A player's action (API.md actions: bet, hit, hit_face_down, stand, raise, split, assign, sit_out, sit_in,
    set_stake, retire_bank). Unknown actions and arguments are refused with ``invalid_request``."""
    uid = _uid(user)
    arguments = dict(args or {})
    command_for_action(action, pipeline.probe_context(), uid, arguments)  # validate before touching the table
    return pipeline.execute(
        table_id=table_id,
        build=lambda ctx, state: command_for_action(action, ctx, uid, arguments),
        actor_id=user.pk,
        actor_username=user.get_username(),
        expected_version=expected_version,
        idempotency_key=idempotency_key,
        request_id=request_id,
    )


def table_timeout(*, table_id: int, version: int) -> int:
    """The system times out the wait at ``version`` (RULES.md §7); nothing happens if the table moved on.

    Returns the number of events appended (0 for a late, repeated or out-of-order delivery).
    """
    try:
        outcome = pipeline.execute(
            table_id=table_id,
            build=lambda ctx, state: Timeout(ctx, version),
            actor_id=None,
            reason="timeout",
        )
    except pipeline.TableNotFound:
        return 0
    return len(outcome.events)


def sweep_overdue_tables(*, grace: timedelta | None = None, limit: int = 100) -> int:
    """Fire the timeout of every table whose deadline passed more than ``grace`` ago; return how many acted."""
    grace = grace if grace is not None else timedelta(seconds=settings.TIMEOUT_SWEEP_GRACE_S)
    overdue = (
        Table.objects.filter(deadline__lt=timezone.now() - grace, waiting_version__isnull=False)
        .order_by("deadline")
        .values_list("id", "waiting_version")[:limit]
    )
    fired = 0
    for table_id, version in overdue:
        try:
            fired += 1 if table_timeout(table_id=table_id, version=version) else 0
        except DomainError:
            continue
    return fired


def player_set_client_seed(*, user: AbstractBaseUser, client_seed: str) -> str:
    """Set the player's client seed for future hands, at every table he sits at too."""
    with transaction.atomic():
        profile, _ = PlayerProfile.objects.update_or_create(user=user, defaults={"client_seed": client_seed})
        table_ids = list(TableSeat.objects.filter(user=user).values_list("table_id", flat=True))
    uid = _uid(user)
    for table_id in table_ids:
        pipeline.execute(
            table_id=table_id,
            build=lambda ctx, state: SetClientSeed(ctx, uid, client_seed),
            actor_id=user.pk,
            actor_username=user.get_username(),
        )
    return profile.client_seed
