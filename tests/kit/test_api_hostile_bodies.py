"""Hostile bodies (issue 11): deeply nested JSON, huge arrays, invalid UTF-8, bodies over the limit, sent with and
without a Content-Length. Each is a 400 or a 413 with the contract's error body, never a 500, and leaves no
traceback in the log."""

from __future__ import annotations

import http.client
import json
import logging

import pytest

from tests.support.api_helpers import assert_error, ledger_state

pytestmark = pytest.mark.django_db

DEPOSITS = "/api/v1/cashier/deposits"
TOKEN = "/api/v1/auth/token"
SEED = "/api/v1/me/client-seed"


@pytest.fixture
def no_tracebacks(caplog):
    """Fails the test if anything was logged at ERROR or with a traceback."""
    caplog.set_level(logging.INFO)
    yield
    bad = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not bad, [(r.name, r.getMessage()) for r in bad]


def _post(client, path: str, body: bytes | str, method: str = "POST", **extra):
    return client.generic(method, path, body, content_type="application/json", **extra)


def _nested(depth: int, opener: str = "[", closer: str = "]") -> str:
    return opener * depth + closer * depth


@pytest.mark.parametrize(
    "body",
    [
        _nested(100_000),
        '{"username": ' + _nested(100_000) + "}",
        '{"a":' * 100_000 + "1" + "}" * 100_000,
        _nested(900),  # parses, but deeper than any request of the contract
        '{"amount": ' + _nested(40) + "}",
    ],
    ids=["array-100k", "field-100k", "object-100k", "array-900", "field-40"],
)
def test_deeply_nested_json_is_400(as_staff, no_tracebacks, body):
    state = ledger_state()
    for key in ({}, {"HTTP_IDEMPOTENCY_KEY": "deep"}):  # the idempotency fingerprint parses the body too
        response = _post(as_staff, DEPOSITS, body, **key)
        details = assert_error(response, 400, "invalid_request")
        assert "nested" in response.json()["error"]["message"]
        assert len(response.content) < 2000, details
    assert_error(_post(as_staff, SEED, body, method="PUT"), 400, "invalid_request")
    assert_error(_post(as_staff.__class__(), TOKEN, body), 400, "invalid_request")
    assert ledger_state() == state


@pytest.mark.parametrize("where", ["top", "field", "unknown-field"])
def test_a_huge_array_is_400_with_a_short_answer(as_staff, no_tracebacks, settings, where):
    items = ",".join(["1"] * ((settings.DATA_UPLOAD_MAX_MEMORY_SIZE - 100) // 2))
    body = {
        "top": f"[{items}]",
        "field": f'{{"username": "x", "amount": [{items}], "reference": "r"}}',
        "unknown-field": f'{{"username": "x", "amount": 1, "reference": "r", "extra": [{items}]}}',
    }[where]
    assert len(body) <= settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    response = _post(as_staff, DEPOSITS, body, HTTP_IDEMPOTENCY_KEY=f"huge-{where}")
    assert_error(response, 400, "invalid_request")
    assert len(response.content) < 5000  # the error does not echo the array back


def test_a_huge_string_in_an_error_is_not_echoed_back(as_staff, no_tracebacks, settings):
    body = json.dumps({"action": "x" * 1_000_000})
    response = _post(as_staff, "/api/v1/tables/1/actions", body)
    assert response.status_code in (400, 403, 404)
    assert len(response.content) < 5000


@pytest.mark.parametrize(
    "body",
    [b'{"username": "\xff\xfe"}', b"\xc3\x28", b'{"a": "\xed\xa0\x80"}', b"\xef\xbb\xbf{}", b"\x00" * 100],
    ids=["ff-fe", "bad-continuation", "utf8-surrogate", "bom", "nul"],
)
def test_invalid_utf8_is_400(as_staff, no_tracebacks, body):
    assert_error(_post(as_staff, DEPOSITS, body, HTTP_IDEMPOTENCY_KEY="utf8"), 400, "invalid_request")


def test_a_body_over_the_limit_is_413(as_staff, no_tracebacks, settings):
    body = '{"username": "x", "amount": 1, "reference": "' + "r" * settings.DATA_UPLOAD_MAX_MEMORY_SIZE + '"}'
    assert_error(_post(as_staff, DEPOSITS, body), 413, "request_too_large")
    assert_error(_post(as_staff.__class__(), TOKEN, body), 413, "request_too_large")


def test_a_body_longer_than_its_content_length_says_is_read_no_further(as_staff, no_tracebacks, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    body = '{"username": "x", "amount": 1, "reference": "' + "r" * 5000 + '"}'
    response = _post(as_staff, DEPOSITS, body, CONTENT_LENGTH="10")
    assert_error(response, 400, "invalid_request")  # the first 10 bytes: not JSON


@pytest.mark.django_db(transaction=True)
def test_a_chunked_body_over_the_limit_is_413_on_the_asgi_server(asgi_server, player, settings):
    """No Content-Length (chunked transfer): the limit applies to what is read, not to what is announced."""
    from kit.tokens import issue_token

    token = issue_token(player)  # (a player may post an exclusion; staff get no token)
    host, port = asgi_server.split(":")
    chunk = b"r" * 65536
    parts = [b'{"username": "x", "amount": 1, "reference": "'] + [chunk] * 64 + [b'"}']  # 4 MiB
    connection = http.client.HTTPConnection(host, int(port), timeout=60)
    connection.putrequest("POST", "/api/v1/me/exclusion")
    connection.putheader("Authorization", f"Token {token}")
    connection.putheader("Content-Type", "application/json")
    connection.putheader("Transfer-Encoding", "chunked")
    connection.endheaders()
    try:
        for part in parts:
            connection.send(b"%x\r\n%s\r\n" % (len(part), part))
        connection.send(b"0\r\n\r\n")
    except (BrokenPipeError, ConnectionResetError):
        pass  # the server may answer and close before reading it all
    response = connection.getresponse()
    body = json.loads(response.read())
    connection.close()
    assert response.status == 413, body
    assert body["error"]["code"] == "request_too_large"
