"""Django's own error views, for what never reaches DRF's exception handler (an unknown URL, a body too large
for Django, a crash outside a DRF view): the API's JSON error body (``kit.api_errors.error_body``) on ``/api/``
paths, Django's pages elsewhere. casino/urls.py wires them as ``handler400/403/404/500``.

``server_error`` answers 503 ``service_unavailable`` with ``Retry-After`` instead of 500 when the exception being
handled says a service is out of reach (:func:`service_unavailable`).
"""

from __future__ import annotations

import sys

import redis
from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from rest_framework import status

from kit.api_errors import RETRY_AFTER_S, error_body, status_for


def _is_api(request: HttpRequest) -> bool:
    return request.path_info.startswith("/api/")


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """``handler400``: JSON on ``/api/`` paths, Django's page elsewhere."""
    if _is_api(request):
        code = "request_too_large" if isinstance(exception, RequestDataTooBig) else "invalid_request"
        message = "The request body is too large." if code == "request_too_large" else "Bad request."
        return JsonResponse(error_body(code, message), status=status_for(code))
    return defaults.bad_request(request, exception)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    """``handler403``: JSON on ``/api/`` paths, Django's page elsewhere."""
    if _is_api(request):
        return JsonResponse(
            error_body("forbidden", "You do not have permission to perform this action."),
            status=status.HTTP_403_FORBIDDEN,
        )
    return defaults.permission_denied(request, exception)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """``handler404``: JSON on ``/api/`` paths (an unknown URL), Django's page elsewhere."""
    if _is_api(request):
        return JsonResponse(
            error_body("not_found", "No such API endpoint.", {"path": request.path}),
            status=status.HTTP_404_NOT_FOUND,
        )
    return defaults.page_not_found(request, exception)


def service_unavailable(exc: BaseException | None) -> bool:
    """Whether an unhandled exception means a service we depend on is (briefly) out of reach, not a bug.

    A lost or refused database connection (a restarted server, a terminated backend, a pool that found no
    connection in time) is ``django.db.OperationalError`` or ``InterfaceError`` (an already closed connection);
    a Redis that does not answer is ``redis.ConnectionError`` / ``TimeoutError``. The transaction of such a
    request did not commit (or, if the connection died during COMMIT, a retry with the same Idempotency-Key
    finds the stored answer), so the client is told to retry: 503 with ``Retry-After``.
    """
    return isinstance(exc, OperationalError | InterfaceError | redis.ConnectionError | redis.TimeoutError)


def server_error(request: HttpRequest) -> HttpResponse:
    """``handler500``: JSON on ``/api/`` paths, Django's page elsewhere; 503 with ``Retry-After`` when the
    exception being handled (Django calls this inside its ``except``) says a service is out of reach."""
    if service_unavailable(sys.exc_info()[1]):
        message = "A service the casino depends on is briefly unavailable; retry (with the same Idempotency-Key)."
        if _is_api(request):
            response: HttpResponse = JsonResponse(error_body("service_unavailable", message), status=503)
        else:
            response = HttpResponse(message, status=503, content_type="text/plain; charset=utf-8")
        response["Retry-After"] = str(RETRY_AFTER_S)
        return response
    if _is_api(request):
        return JsonResponse(
            error_body("server_error", "Internal server error."), status=status.HTTP_500_INTERNAL_SERVER_ERROR
        )
    return defaults.server_error(request)
