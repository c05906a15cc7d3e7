"""Error pages and error reports that show no secret, under DEBUG too (issue #26, DESIGN.md principle 11).

Django's technical 500 page (``DEBUG`` on) and its error e-mails print the settings, the request's ``META``
(under runserver, the whole process environment: database URLs, keys), cookies, POST data (a posted password) and
every frame's local variables (inside a command: its context, with the plain seed of the hand in play). Django
cleanses some of it by name, and only when ``DEBUG`` is off. Here nothing of that is shown, ever:

- settings: none;
- ``META``: only the request line and non-secret headers (:data:`SAFE_META`, ``HTTP_*`` but cookies and
  authorisation);
- cookies, POST and GET values, and the query string: names only;
- frames: the code and the line, no local variables.

What stays: the exception's type and message, the traceback's code, the URL's path, the user's name. The log lines
(``django.request``) carry the traceback text, which holds no local variable either.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.views.debug import ExceptionReporter, SafeExceptionReporterFilter

CLEANSED = "********************"
HIDDEN_LOCALS = "(local variables are never shown: docs/security.md)"

#: META keys shown on an error page: the request line and the server's name, nothing from the environment
SAFE_META = frozenset(
    {
        "REQUEST_METHOD",
        "PATH_INFO",
        "SCRIPT_NAME",
        "SERVER_NAME",
        "SERVER_PORT",
        "SERVER_PROTOCOL",
        "CONTENT_TYPE",
        "CONTENT_LENGTH",
        "REMOTE_ADDR",
    }
)
_SECRET_HEADERS = frozenset({"HTTP_COOKIE", "HTTP_AUTHORIZATION", "HTTP_PROXY_AUTHORIZATION", "HTTP_X_CSRFTOKEN"})


def safe_meta(meta: dict[str, Any]) -> dict[str, Any]:
    """The request line and the non-secret headers of ``meta``; every other key is dropped."""
    return {
        key: value
        for key, value in meta.items()
        if key in SAFE_META or (key.startswith("HTTP_") and key not in _SECRET_HEADERS)
    }


class NoSecretsFilter(SafeExceptionReporterFilter):
    """Cleanses everything a report could show, whatever ``DEBUG`` says (Django's is inactive under DEBUG)."""

    def is_active(self, request: HttpRequest | None) -> bool:
        return True

    def get_safe_settings(self) -> dict[str, Any]:
        return {}

    def get_safe_request_meta(self, request: HttpRequest) -> dict[str, Any]:
        return safe_meta(dict(getattr(request, "META", {})))

    def get_safe_cookies(self, request: HttpRequest) -> dict[str, Any]:
        return dict.fromkeys(getattr(request, "COOKIES", {}), CLEANSED)

    def get_post_parameters(self, request: HttpRequest | None) -> Any:
        return {} if request is None else dict.fromkeys(request.POST, CLEANSED)

    def get_traceback_frame_variables(self, request: HttpRequest | None, tb_frame: Any) -> list[tuple[str, Any]]:
        return []


class NoSecretsReporter(ExceptionReporter):
    """Django's reporter with what its filter does not reach cleansed too (cookies, GET, the query string)."""

    def get_traceback_data(self) -> dict[str, Any]:
        data = super().get_traceback_data()
        data["settings"] = {}
        request = self.request
        if request is not None:
            data["request_meta"] = safe_meta(dict(request.META))
            data["request_COOKIES_items"] = [(name, CLEANSED) for name in request.COOKIES]
            data["request_GET_items"] = [(name, CLEANSED) for name in request.GET]
            data["filtered_POST_items"] = [(name, CLEANSED) for name in request.POST]
            data["request_FILES_items"] = [(name, CLEANSED) for name in request.FILES]
            data["request_insecure_uri"] = request.path
        for frame in data.get("frames", []):
            frame["vars"] = []
        return data
