"""The API's JSON parser: DRF's, with a bound on the body size.

DRF reads the body straight from the WSGI stream, so Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE`` never applies to
it; this parser applies it (413 ``request_too_large``) before reading anything. (Imports nothing of the
API: ``rest_framework.views`` imports the default parsers.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from rest_framework import exceptions, parsers


class RequestTooLarge(exceptions.APIException):
    """413 ``request_too_large`` (see ``casino.api.errors.STATUS_BY_CODE``)."""

    status_code = 413
    default_detail = "The request body is too large."
    default_code = "request_too_large"


class JSONParser(parsers.JSONParser):
    def parse(
        self, stream: IO[bytes], media_type: str | None = None, parser_context: Mapping[str, Any] | None = None
    ) -> Any:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        request = (parser_context or {}).get("request")
        if limit is not None and request is not None:
            meta = request.META
            try:
                length = int(meta.get("CONTENT_LENGTH") or 0)
            except ValueError:
                length = 0
            if length > limit:
                raise RequestTooLarge(f"The request body is larger than {limit} bytes.")
        return super().parse(stream, media_type, parser_context)
