"""OpenAPI: the ``ErrorResponse`` component on every operation's error statuses, and the Idempotency-Key header.

``ApiAutoSchema`` is ``REST_FRAMEWORK["DEFAULT_SCHEMA_CLASS"]``. For each operation it adds one response per
error status the operation can return, all with the ``ErrorResponse`` body, each describing its codes. The
codes come from :func:`api_errors` on the view method, plus those the operation has by construction:

- ``invalid_request`` for a method with a body (POST, PUT, PATCH);
- ``not_authenticated`` when a permission requires a signed-in user, ``forbidden`` when it requires staff;
- ``throttled`` when the view has throttles;
- ``idempotency_conflict`` (and ``invalid_request``, for a malformed header) on an :func:`idempotent` POST
  of a signed-in user; every idempotent POST also documents the ``Idempotency-Key`` header.

The status of each code is that of :data:`kit.api_errors.STATUS_BY_CODE`, so the schema cannot disagree
with the exception handler.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework.permissions import IsAdminUser, IsAuthenticated

from kit.api_errors import STATUS_BY_CODE, status_for
from kit.idempotency import HEADER, is_idempotent
from kit.serializers import ErrorResponseSerializer

F = TypeVar("F", bound=Callable[..., Any])

IDEMPOTENCY_KEY_PARAMETER = OpenApiParameter(
    name=HEADER,
    type=OpenApiTypes.STR,
    location=OpenApiParameter.HEADER,
    required=False,
    description=(
        "1-100 printable ASCII characters, chosen by the client, per user. A repeat with the same key and the "
        "same body returns the first response (status and body, with `Idempotent-Replayed: true`) and "
        "changes nothing; the same key with another body is 409 `idempotency_conflict`."
    ),
)

ANONYMOUS_IDEMPOTENCY_KEY_PARAMETER = OpenApiParameter(
    name=HEADER,
    type=OpenApiTypes.STR,
    location=OpenApiParameter.HEADER,
    required=False,
    description=(
        "Accepted (1-100 printable ASCII characters, else 400) but not stored: this endpoint is anonymous, so "
        "there is no user to scope the key to."
    ),
)


def api_errors(*codes: str) -> Callable[[F], F]:
    """Declare the error codes a view method can return besides those it has by construction (see the module
    docstring), for the OpenAPI schema: ``@api_errors("not_found", "insufficient_funds")``."""
    unknown = [code for code in codes if code not in STATUS_BY_CODE]
    if unknown:
        raise ValueError(f"unknown error codes {unknown}: add them to kit.api_errors.STATUS_BY_CODE")

    def decorate(method: F) -> F:
        method.api_error_codes = (*getattr(method, "api_error_codes", ()), *codes)  # type: ignore[attr-defined]
        return method

    return decorate


class PlayCookieScheme(OpenApiAuthenticationExtension):
    """The /play/ pages' HttpOnly token cookie (kit.authentication.CookieTokenAuthentication): a scheme of its own in
    the schema, beside ``tokenAuth`` (its subclass would otherwise claim the same name)."""

    target_class = "kit.authentication.CookieTokenAuthentication"
    name = "playCookieAuth"
    priority = 1

    def get_security_definition(self, auto_schema: AutoSchema) -> dict[str, str]:
        from django.conf import settings

        return {
            "type": "apiKey",
            "in": "cookie",
            "name": settings.PLAY_TOKEN_COOKIE,
            "description": "The /play/ pages' token (HttpOnly); unsafe methods need the page's X-CSRFToken.",
        }


class ApiAutoSchema(AutoSchema):
    def _handler(self) -> Any:
        return getattr(self.view, self.method.lower(), None)

    def _idempotent_post(self) -> bool:
        return self.method == "POST" and is_idempotent(self._handler())

    def _anonymous(self) -> bool:
        return not self.view.get_authenticators()

    def get_override_parameters(self) -> list[Any]:
        parameters = list(super().get_override_parameters())
        if self._idempotent_post():
            parameters.append(ANONYMOUS_IDEMPOTENCY_KEY_PARAMETER if self._anonymous() else IDEMPOTENCY_KEY_PARAMETER)
        return parameters

    def error_codes(self) -> list[str]:
        """The error codes of this operation, in a stable order."""
        codes: list[str] = list(getattr(self._handler(), "api_error_codes", ()))
        if self.method in {"POST", "PUT", "PATCH"}:
            codes.append("invalid_request")
        permissions = self.view.get_permissions()
        # a tuple, not IsAuthenticated | IsAdminUser: DRF overloads | on permission classes
        if any(isinstance(p, (IsAuthenticated, IsAdminUser)) for p in permissions):
            codes.append("not_authenticated")
        if any(isinstance(p, IsAdminUser) for p in permissions):
            codes.append("forbidden")
        if self.view.get_throttles():
            codes.append("throttled")
        if self._idempotent_post() and not self._anonymous():
            codes.append("idempotency_conflict")
        return list(dict.fromkeys(codes))

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses: dict[str, Any] = super()._get_response_bodies(direction)
        by_status: dict[int, list[str]] = {}
        for code in self.error_codes():
            by_status.setdefault(status_for(code), []).append(code)
        for status_code, codes in sorted(by_status.items()):
            description = "Error: " + ", ".join(f"`{code}`" for code in codes) + "."
            response = OpenApiResponse(ErrorResponseSerializer, description=description)
            responses.setdefault(str(status_code), self._get_response_for_code(response, str(status_code)))
        return responses
