"""The API's JSON parser: DRF's, with bounds on what a body may cost.

- Size: DRF reads the body straight from the request stream, so Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE`` never
  applies to it; this parser applies it (413 ``request_too_large``): to the announced Content-Length before
  reading anything, and to what it reads (it never reads more than the limit and one byte).
- Nesting: Python's JSON decoder recurses, so 100,000 nested brackets raise ``RecursionError`` (a 500 with a
  traceback); and a body that parses but nests deeper than any request of the contract could still overflow
  code that walks it later (the idempotency fingerprint, the error body). Both are 400 ``invalid_request``:
  no request of the contract nests more than a few levels, :data:`MAX_DEPTH` allows many more.
- Encoding: invalid UTF-8 is DRF's ``ParseError`` (400).
(Imports nothing of the API: ``rest_framework.views`` imports the default parsers.)
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from rest_framework import exceptions, parsers

#: The deepest nesting of arrays and objects a body may have (the contract's deepest request has 2).
MAX_DEPTH = 16


class RequestTooLarge(exceptions.APIException):
    """413 ``request_too_large`` (see ``kit.api_errors.STATUS_BY_CODE``)."""

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
        raw = stream.read(limit + 1) if limit is not None else stream.read()
        if limit is not None and len(raw) > limit:
            raise RequestTooLarge(f"The request body is larger than {limit} bytes.")
        try:
            data = super().parse(io.BytesIO(raw), media_type, parser_context)
        except RecursionError:
            raise exceptions.ParseError(f"JSON nested more than {MAX_DEPTH} levels deep.") from None
        if nested_deeper_than(data, MAX_DEPTH):
            raise exceptions.ParseError(f"JSON nested more than {MAX_DEPTH} levels deep.")
        return data


def nested_deeper_than(value: Any, limit: int) -> bool:
    """Whether arrays and objects in ``value`` nest more than ``limit`` levels (without recursion)."""
    if not isinstance(value, list | dict):
        return False
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, list | dict))
    return False
