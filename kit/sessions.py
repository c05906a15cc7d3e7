"""The session engine (``SESSION_ENGINE``): Django's database sessions, with the session key stored as a keyed hash.

The cookie carries the session key; ``django_session.session_key`` holds ``HMAC-SHA256(SECRET_KEY, key)`` (the
first 40 hex digits: the column's width, 160 bits). Whoever reads the database or a backup (the application's
role, an operator with a dump) finds no key he could send as a cookie, so he replays no operator's admin session
(issue #43); without ``SECRET_KEY`` he cannot turn a stored row back into a cookie or forge one. Everything else is
Django's ``db`` engine: expiry, logout deleting the row at once, ``clearsessions``. Sessions stored before this
engine (plain keys) no longer match: their holders sign in again.
"""

from __future__ import annotations

from typing import Any

from django.contrib.sessions.backends import db
from django.utils import timezone
from django.utils.crypto import salted_hmac

_SALT = "kit.sessions.stored-key"


def stored_key(session_key: str) -> str:
    """What the database keeps for ``session_key``."""
    return salted_hmac(_SALT, session_key, algorithm="sha256").hexdigest()[:40]


class SessionStore(db.SessionStore):
    """Django's database session store, keyed by :func:`stored_key` of the cookie's key."""

    def _get_session_from_db(self) -> Any:
        try:
            return self.model.objects.get(
                session_key=stored_key(self.session_key or ""), expire_date__gt=timezone.now()
            )
        except self.model.DoesNotExist:
            self._session_key = None
            return None

    async def _aget_session_from_db(self) -> Any:
        try:
            return await self.model.objects.aget(
                session_key=stored_key(self.session_key or ""), expire_date__gt=timezone.now()
            )
        except self.model.DoesNotExist:
            self._session_key = None
            return None

    def exists(self, session_key: str) -> bool:
        return bool(self.model.objects.filter(session_key=stored_key(session_key)).exists())

    async def aexists(self, session_key: str) -> bool:
        return bool(await self.model.objects.filter(session_key=stored_key(session_key)).aexists())

    def create_model_instance(self, data: dict[str, Any]) -> Any:
        instance = super().create_model_instance(data)
        instance.session_key = stored_key(instance.session_key)
        return instance

    async def acreate_model_instance(self, data: dict[str, Any]) -> Any:
        instance = await super().acreate_model_instance(data)
        instance.session_key = stored_key(instance.session_key)
        return instance

    def delete(self, session_key: str | None = None) -> None:
        key = session_key if session_key is not None else self.session_key
        if key is not None:
            self.model.objects.filter(session_key=stored_key(key)).delete()

    async def adelete(self, session_key: str | None = None) -> None:
        key = session_key if session_key is not None else self.session_key
        if key is not None:
            await self.model.objects.filter(session_key=stored_key(key)).adelete()
