"""Sockets end when their credentials do (API.md "Conventions": a revoked or expired token ends every WebSocket
opened with it, close 4401 within 5 seconds).

Each event loop keeps the authenticated sockets it serves with what they authenticated with: an API token (its
primary key, the digest) or a session (its key). Every ``LIVE_REVALIDATE_S`` seconds one task asks the database,
in one query for all the tokens of the process (and one per session socket, the reference page's), which of them
still hold: a token deleted (logout, password change, a break or self-exclusion, the admin), expired, or whose
user was deactivated, and a session flushed, expired or no longer matching its user's password, closes its
sockets with 4401. However a token is revoked (any code path, a row deleted by hand), the sockets follow.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.db.models import Q
from django.utils import timezone
from django.utils.crypto import constant_time_compare
from knox.models import AuthToken

from tables.live import db
from tables.live.guard import guards
from tables.live.loops import per_loop

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Credential:
    """What a socket authenticated with: a token's primary key, or a session's key, and the user."""

    user_id: int
    token: str | None = None
    session: str | None = None


def valid_tokens(token_ids: Iterable[str]) -> set[str]:
    """Those of ``token_ids`` that are unexpired tokens of active users. One query."""
    ids = list(token_ids)
    if not ids:
        return set()
    alive = Q(expiry__isnull=True) | Q(expiry__gt=timezone.now())
    rows = AuthToken.objects.filter(alive, pk__in=ids, user__is_active=True).values_list("pk", flat=True)
    return {str(pk) for pk in rows}


def valid_session(session_key: str, user_id: int) -> bool:
    """True if the session still signs ``user_id`` in (Django's own check: the user active, the password the
    session was opened with unchanged)."""
    store = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
    data = store.load()
    if str(data.get(SESSION_KEY)) != str(user_id):
        return False
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    session_hash = data.get(HASH_SESSION_KEY)
    return bool(user and session_hash and constant_time_compare(session_hash, user.get_session_auth_hash()))


def _still_valid(credentials: list[Credential]) -> set[Credential]:
    tokens = valid_tokens(c.token for c in credentials if c.token is not None)
    kept = {c for c in credentials if c.token is not None and c.token in tokens}
    for credential in credentials:
        if credential.session is not None and valid_session(credential.session, credential.user_id):
            kept.add(credential)
    return kept


_check = db.read(_still_valid)

Revoke = Callable[[], Awaitable[None]]


class Registry:
    """The authenticated sockets of one event loop and the task that checks their credentials."""

    def __init__(self) -> None:
        self._sockets: dict[Revoke, Credential] = {}
        self._task: asyncio.Task[None] | None = None

    def add(self, revoke: Revoke, credential: Credential) -> None:
        self._sockets[revoke] = credential
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="live-credentials")

    def discard(self, revoke: Revoke) -> None:
        self._sockets.pop(revoke, None)

    async def sweep(self) -> int:
        """Close the sockets whose credentials no longer hold; how many were closed."""
        if not self._sockets:
            return 0
        snapshot = dict(self._sockets)
        kept = await _check(list(set(snapshot.values())))
        closed = 0
        for revoke, credential in snapshot.items():
            if credential not in kept and revoke in self._sockets:
                self._sockets.pop(revoke, None)
                closed += 1
                await revoke()
        return closed

    async def _run(self) -> None:
        while self._sockets:
            await asyncio.sleep(settings.LIVE_REVALIDATE_S)
            try:
                await self.sweep()
            except Exception:  # the database away: the sockets stay until it answers (REST refuses meanwhile)
                log.warning("live: could not check the credentials of open sockets", exc_info=True)
            guards().pace.forget_idle()


#: This event loop's :class:`Registry`.
registry = per_loop(Registry)


def credential_for(user: Any, token_id: str | None, session_key: str | None) -> Credential:
    return Credential(user_id=int(user.pk), token=token_id, session=session_key)
