"""Services of the tables (HackSoft style: ``<entity>_<action>``, keyword-only, one transaction each).

Every table command goes through :func:`tables.pipeline.execute`: creating a table, sitting, leaving, a player's
action, the client seed, the timeouts and the idle seats (and their sweeps). A hand's disputes are
``tables.disputes``.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.db.models.functions import Now
from msgspec import UNSET

from rules import (
    ActionBody,
    Context,
    DomainError,
    InsufficientFunds,
    LeaveSeat,
    ReleaseIdleSeat,
    SetClientSeed,
    SitDown,
    TableState,
    Timeout,
    action_body,
)
from tables import pipeline, worth
from tables.errors import SeatLimit, SeatNotIdle, TableNotFound, TimeoutNotDue
from tables.idle_seats import idle_seats, idleness
from tables.models import PlayerProfile, Table, TableSeat
from tables.pipeline import Outcome
from tables.table_spec import TableSpec

log = logging.getLogger(__name__)


def _uid(user: AbstractBaseUser) -> str:
    return str(user.pk)


def new_client_seed() -> str:
    """A fresh random client seed (32 hex characters: it follows the client-seed rule), for a player who has not
    chosen one."""
    return secrets.token_hex(16)


def player_client_seed(*, user: AbstractBaseUser) -> str:
    """The player's client seed (a random default is created on first need)."""
    profile, _ = PlayerProfile.objects.get_or_create(user=user, defaults={"client_seed": new_client_seed()})
    return profile.client_seed


@transaction.atomic
def table_create(
    *, operator: AbstractBaseUser | None, name: str, spec: TableSpec, idempotency_key: str | None = None
) -> Table:
    """Create a table: its row (the stream) and its first event, TableCreated, with the validated config.

    The rules core judges the combination (the core's ``DomainError`` naming the field); then the casino's limits
    on what a table returns (``tables.worth.guard``: a house bank outside ``MIN_RTP``-``MAX_RTP`` is refused with
    ``rules_refused``). A player bank's simulated figure is asked for here (the lab's task, after commit)."""
    worth.guard(spec.config())
    table = Table.objects.create(name=name, preset=str(spec.preset)[:20], created_by=operator)
    pipeline.execute(
        table_id=table.pk,
        build=lambda ctx, state: spec.command(),
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
    """Take a seat (the lowest free one when ``seat`` is None).

    API.md v1.2 seats, checked in the command's transaction (the table row locked): the wallet holds at least the
    table's ``min_bet`` (409 ``insufficient_funds``), and the account holds fewer than ``SEATS_PER_ACCOUNT`` seats
    over all tables (409 ``seat_limit``; the account's sits queue on one lock, so two at once cannot pass it)."""
    client_seed = player_client_seed(user=user)
    uid = _uid(user)
    username = user.get_username()

    def build(ctx: Context, state: TableState) -> SitDown:
        if state.config is not None and state.seat_of(uid) is None:
            wallet = ctx.wallets.get(uid, 0)
            _check_may_sit(table_id=table_id, user_id=user.pk, wallet=wallet, min_bet=state.config.min_bet)
        return SitDown(player_id=uid, username=username, seat=seat, client_seed=client_seed)

    return pipeline.execute(
        table_id=table_id,
        build=build,
        actor_id=user.pk,
        actor_username=username,
        expected_version=expected_version,
        idempotency_key=idempotency_key,
    )


def _check_may_sit(*, table_id: int, user_id: int, wallet: int, min_bet: int) -> None:
    if wallet < min_bet:
        raise InsufficientFunds(
            f"sitting at this table needs at least {min_bet} chips in the wallet",
            {"min_bet": min_bet, "balance": wallet},
        )
    with connection.cursor() as cursor:  # this account's sits one at a time, until the transaction ends
        cursor.execute("SELECT pg_advisory_xact_lock(hashtext('casino.seats'), %s)", [user_id])
    held = TableSeat.objects.filter(user_id=user_id).exclude(table_id=table_id).count()
    if held >= settings.SEATS_PER_ACCOUNT:
        raise SeatLimit(
            f"an account holds at most {settings.SEATS_PER_ACCOUNT} seats at once; leave a table first",
            {"limit": settings.SEATS_PER_ACCOUNT, "held": held},
        )


def table_leave(
    *, table_id: int, user: AbstractBaseUser, expected_version: int | None = None, idempotency_key: str | None = None
) -> Outcome:
    """Leave: at once between hands, else after the current hand."""
    uid = _uid(user)
    return pipeline.execute(
        table_id=table_id,
        build=lambda ctx, state: LeaveSeat(player_id=uid),
        actor_id=user.pk,
        actor_username=user.get_username(),
        expected_version=expected_version,
        idempotency_key=idempotency_key,
    )


def table_release_idle_seat(*, table_id: int, user_id: int) -> int:
    """Release the seat of ``user_id`` if it is idle (``tables.idle_seats``; checked again with the table locked):
    ``SeatLeft`` with reason ``idle``. Returns the number of events appended (0: not idle, or no seat)."""

    def build(ctx: Context, state: TableState) -> ReleaseIdleSeat:
        if state.seat_of(str(user_id)) is None or idleness(table_id, user_id) is None:
            raise SeatNotIdle(table_id, user_id)
        return ReleaseIdleSeat(player_id=str(user_id))

    try:
        outcome = pipeline.execute(table_id=table_id, build=build, actor_id=None, reason="idle_seat")
    except (SeatNotIdle, TableNotFound):
        return 0
    return len(outcome.events)


def sweep_idle_seats(*, limit: int = 500) -> int:
    """Release every idle seat (at most ``limit`` a run); one that fails (logged) does not stop the others."""
    released = 0
    for seat in idle_seats(limit=limit):
        try:
            released += 1 if table_release_idle_seat(table_id=seat.table_id, user_id=seat.user_id) else 0
        except DomainError:  # in the hand in play meanwhile: not idle any more
            continue
        except Exception:
            log.exception("idle seats: releasing user %s at table %s failed", seat.user_id, seat.table_id)
    return released


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
    """A player's action by name and arguments (API.md actions), checked as the API checks its body
    (:func:`rules.action_body`): unknown actions and arguments are refused with ``invalid_request``."""
    body = {**(args or {}), "action": action}
    if expected_version is not None:
        body["expected_version"] = expected_version
    return table_play(
        table_id=table_id, user=user, body=action_body(body), idempotency_key=idempotency_key, request_id=request_id
    )


def table_play(
    *,
    table_id: int,
    user: AbstractBaseUser,
    body: ActionBody,
    idempotency_key: str | None = None,
    request_id: str | None = None,
) -> Outcome:
    """A player's action, as its validated body (``POST /tables/{id}/actions``)."""
    command = body.command(_uid(user))
    return pipeline.execute(
        table_id=table_id,
        build=lambda ctx, state: command,
        actor_id=user.pk,
        actor_username=user.get_username(),
        expected_version=None if body.expected_version is UNSET else body.expected_version,
        idempotency_key=idempotency_key,
        request_id=request_id,
    )


def database_now_ms() -> int:
    """The database server's clock, in milliseconds since the epoch: the one clock every process shares."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint")
        row = cursor.fetchone()
    return int(row[0])


def table_timeout(*, table_id: int, version: int, now_ms: int | None = None) -> int:
    """The system times out the wait at ``version`` (RULES.md §7); nothing happens if the table moved on.

    Only once its deadline has passed on the database's clock: never on the clock of the worker that runs the
    task (a worker clock running ahead, or a message sent early, would cut a player's time short). Before the
    deadline this raises :class:`TimeoutNotDue` and writes nothing. ``now_ms`` replaces the database's clock
    (tests that play time forward). Returns the number of events appended (0 for a late, repeated or
    out-of-order delivery).
    """
    clock = database_now_ms() if now_ms is None else now_ms

    def build(ctx: Context, state: TableState) -> Timeout:
        awaiting = state.awaiting
        if awaiting is not None and state.version == version and clock < awaiting.deadline_ms:
            raise TimeoutNotDue(table_id, awaiting.deadline_ms - clock)
        return Timeout(expected_version=version)

    try:
        outcome = pipeline.execute(table_id=table_id, build=build, actor_id=None, reason="timeout", now_ms=clock)
    except TableNotFound:
        return 0
    return len(outcome.events)


def sweep_overdue_tables(*, grace: timedelta | None = None, limit: int = 100) -> int:
    """Fire the timeout of every table whose deadline passed more than ``grace`` ago (on the database's clock);
    return how many acted. One table that fails (any exception, logged with its id) does not stop the others."""
    grace = grace if grace is not None else timedelta(seconds=settings.TIMEOUT_SWEEP_GRACE_S)
    overdue = (
        Table.objects.filter(deadline__lt=Now() - grace, waiting_version__isnull=False)
        .order_by("deadline")
        .values_list("id", "waiting_version")[:limit]
    )
    fired = 0
    for table_id, version in overdue:
        try:
            fired += 1 if table_timeout(table_id=table_id, version=version) else 0
        except (DomainError, TimeoutNotDue):
            continue
        except Exception:
            log.exception("sweep: the timeout of table %s (version %s) failed; sweeping the others", table_id, version)
    return fired


def player_set_client_seed(*, user: AbstractBaseUser, client_seed: str) -> list[tuple[int, int]]:
    """Set the player's client seed for future hands, at every table he sits at too; the (table, version) of
    each table's ``ClientSeedSet``, which the player keeps in his own record of his seeds (API.md v1.3)."""
    with transaction.atomic():
        PlayerProfile.objects.update_or_create(user=user, defaults={"client_seed": client_seed})
        table_ids = list(TableSeat.objects.filter(user=user).values_list("table_id", flat=True))
    uid = _uid(user)
    versions = []
    for table_id in table_ids:
        outcome = pipeline.execute(
            table_id=table_id,
            build=lambda ctx, state: SetClientSeed(player_id=uid, client_seed=client_seed),
            actor_id=user.pk,
            actor_username=user.get_username(),
        )
        versions += [(table_id, e.version) for e in outcome.events if e.type == "ClientSeedSet"]
    return versions
