"""Errors of the casino's own services (players and accounts). ``kit.api_errors`` maps them to the API's
bodies like every other error with a ``code``."""

from __future__ import annotations


class InvalidField(Exception):
    """A value the service refuses (a username breaking the rules or taken, a client seed breaking its rule):
    400 ``invalid_request`` naming the field, shaped like a serializer's validation error."""

    code = "invalid_request"

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message
        self.details = {"fields": {field: [message]}}
