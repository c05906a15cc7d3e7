"""The buffering proxy in front of the servers (issue 27): docker/nginx/'s configuration, run by Debian's nginx
(devtools/nginx.py) in front of a real gunicorn (compose's gthread command, one small worker) and a real uvicorn.

- 200 slow senders (one header byte at a time) hold their connections while another client's p99 stays under
  200 ms: they wait in nginx, never in a gunicorn thread (without the proxy, gunicorn's threads are theirs);
- ``/ws/`` and the events long-poll reach the live server, everything else gunicorn;
- a body over the limit is 413 with the API's error body, before the application reads it;
- the client address is nginx's ``X-Real-IP``, believed from the proxy only: a forged ``X-Forwarded-For`` or
  ``X-Real-IP`` chooses nothing, through the proxy or around it.
"""

from __future__ import annotations

import http.client
import json
import socket
import statistics
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from devtools.nginx import nginx_binary, running
from kit.tokens import issue_token
from tables.store import load_stream
from tests.conftest import child_database_url, free_port, healthy, wait_for
from tests.support.play import make_players, make_table

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(nginx_binary() is None, reason="nginx is not installed (.ci/run installs it)"),
]

SLOW_SENDERS = 200
P99_LIMIT_S = 0.200


def _request(
    base: str, path: str, *, method: str = "GET", body: bytes | None = None, headers: dict[str, str] | None = None,
    timeout: float = 40,
) -> tuple[int, Any, Any]:  # fmt: skip
    request = urllib.request.Request(base + path, method=method, data=body, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read() or b"null"), response.headers
    except urllib.error.HTTPError as error:
        raw = error.read()
        try:
            return error.code, json.loads(raw or b"null"), error.headers
        except ValueError:
            return error.code, raw, error.headers


@pytest.fixture
def stack(spawn: Any, child_env: dict[str, str]) -> Iterator[dict[str, str]]:
    """gunicorn (2 threads: what slow senders would exhaust at once), uvicorn and nginx in front of both."""
    env = {**child_env, "DATABASE_URL": child_database_url(), "TRUSTED_PROXIES": "127.0.0.1"}
    web_port, live_port, edge_port = free_port(), free_port(), free_port()
    gunicorn = ["-m", "gunicorn", "casino.wsgi:application", "--config", "python:casino.gunicorn_conf", "--bind",
                f"127.0.0.1:{web_port}", "--worker-class", "gthread", "--workers", "1", "--threads", "2"]  # fmt: skip
    uvicorn = ["-m", "uvicorn", "casino.asgi:application", "--host", "127.0.0.1", "--port", str(live_port),
               "--lifespan", "off", "--ws-per-message-deflate", "false", "--ws-max-size", "4096",
               "--log-level", "warning"]  # fmt: skip
    spawn(gunicorn, env=env)
    spawn(uvicorn, env=env)
    web, live = f"http://127.0.0.1:{web_port}", f"http://127.0.0.1:{live_port}"
    for base in (web, live):
        assert wait_for(lambda b=base: healthy(b), 60), f"{base} never became healthy"
    with running(port=edge_port, web=f"127.0.0.1:{web_port}", live=f"127.0.0.1:{live_port}"):
        yield {"edge": f"http://127.0.0.1:{edge_port}", "web": web, "live": live, "edge_port": str(edge_port)}


def _slow_sender(port: int, stop: threading.Event, opened: list[int]) -> None:
    """One connection that sends a request header one byte at a time, a byte every second, forever."""
    try:
        conn = socket.create_connection(("127.0.0.1", port), timeout=5)
    except OSError:
        return
    opened.append(1)
    header = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 4000
    try:
        for byte in header:
            if stop.wait(1.0):
                break
            conn.send(bytes([byte]))
    except OSError:
        pass
    finally:
        conn.close()


def _latencies(base: str, path: str, headers: dict[str, str], count: int) -> list[float]:
    samples = []
    for _ in range(count):
        started = time.monotonic()
        status, _, _ = _request(base, path, headers=headers, timeout=10)
        samples.append(time.monotonic() - started)
        assert status == 200
    return samples


def test_slow_senders_wait_in_the_proxy_while_another_clients_p99_stays_under_200_ms(stack):
    token = issue_token(make_players(1)[0])
    headers = {"Authorization": f"Token {token}"}
    port = int(stack["edge_port"])
    stop = threading.Event()
    opened: list[int] = []
    senders = [
        threading.Thread(target=_slow_sender, args=(port, stop, opened), daemon=True) for _ in range(SLOW_SENDERS)
    ]
    for sender in senders:
        sender.start()
    try:
        assert wait_for(lambda: len(opened) >= SLOW_SENDERS, 30)
        time.sleep(2.5)  # every slow sender is mid-header now
        # three rounds of 100 (the senders still held): the best one, so that a burst of the shared machine's
        # other work (`make test` runs two workers a core) does not decide; without the proxy such senders hold
        # every gunicorn thread and every round waits seconds (issue 27)
        p99 = min(statistics.quantiles(_latencies(stack["edge"], "/api/v1/tables", headers, 100), n=100)[98]
                  for _ in range(3))  # fmt: skip
        assert p99 < P99_LIMIT_S, f"p99 {p99 * 1000:.0f} ms with {SLOW_SENDERS} slow senders held"
    finally:
        stop.set()
        for sender in senders:
            sender.join(timeout=5)


def test_the_proxy_routes_websockets_and_long_polls_to_the_live_server(stack):
    player = make_players(1)[0]
    token = issue_token(player)
    table = make_table("classic")
    version = len(load_stream(table.pk))
    ws_url = stack["edge"].replace("http://", "ws://") + f"/ws/v1/tables/{table.pk}"
    with connect(ws_url, open_timeout=10) as ws:
        ws.send(json.dumps({"type": "auth", "token": token}))
        assert json.loads(ws.recv(timeout=10)) == {"type": "events", "events": [], "last_seq": version}
        ws.send("x" * 5000)  # the live server's frame limit holds through the proxy
        with pytest.raises(ConnectionClosed):
            ws.recv(timeout=10)
        assert ws.close_code == 1009
    started = time.monotonic()
    status, body, _ = _request(
        stack["edge"],
        f"/api/v1/tables/{table.pk}/events?after={version}&wait=1",
        headers={"Authorization": f"Token {token}"},
    )
    assert (status, body["events"]) == (200, []) and time.monotonic() - started >= 0.9  # it waited: the live server


def test_a_body_over_the_limit_is_413_with_the_api_error_body(stack):
    status, body, _ = _request(
        stack["edge"], "/api/v1/auth/token", method="POST", body=b"{" + b" " * (3 * 1024 * 1024) + b"}",
        headers={"Content-Type": "application/json"},
    )  # fmt: skip
    assert status == 413 and body["error"]["code"] == "request_too_large"


def test_the_client_address_is_the_proxys_and_a_forged_one_is_not_believed(stack):
    """TRUSTED_PROXIES is 127.0.0.1 (nginx's address towards the servers): through nginx the address is the one
    nginx saw; a client reaching gunicorn directly (from 127.0.0.3) is counted under its own, whatever it sends."""
    from axes.models import AccessAttempt

    victim = make_players(1)[0]
    wrong = json.dumps({"username": victim.username, "password": "wrong guess"}).encode()
    forged = {"Content-Type": "application/json", "X-Forwarded-For": "203.0.113.9", "X-Real-IP": "203.0.113.10"}
    status, _, _ = _request(stack["edge"], "/api/v1/auth/token", method="POST", body=wrong, headers=forged)
    assert status == 400
    host, port = stack["web"].removeprefix("http://").split(":")
    direct = http.client.HTTPConnection(host, int(port), timeout=10, source_address=("127.0.0.3", 0))
    direct.request("POST", "/api/v1/auth/token", body=wrong, headers=forged)
    assert direct.getresponse().status == 400
    direct.close()
    addresses = set(AccessAttempt.objects.filter(username=victim.username.lower()).values_list("ip_address", flat=True))
    assert addresses == {"127.0.0.1", "127.0.0.3"}


def _status_through(edge_port: int, path: str, headers: dict[str, str]) -> tuple[int, str]:
    """The status and Location of one request through nginx (redirects not followed)."""
    connection = http.client.HTTPConnection("127.0.0.1", edge_port, timeout=20)
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    response.read()
    connection.close()
    return response.status, response.getheader("Location") or ""


def test_behind_a_tls_balancer_the_scheme_it_forwards_is_kept_and_nobody_elses(spawn, child_env):
    """Issue #43: nginx overwrote X-Forwarded-Proto with its own scheme (http), so behind a TLS load balancer, as
    compose documents it (BEHIND_TLS_PROXY=1, SECURE_SSL_REDIRECT), every request was redirected to https forever.
    Now the balancer's header passes (NGINX_REAL_IP_FROM, here the test client at 127.0.0.1), and a client that is
    not the balancer still cannot claim https."""
    env = {**child_env, "DATABASE_URL": child_database_url(), "TRUSTED_PROXIES": "127.0.0.1",
           "BEHIND_TLS_PROXY": "1", "SECURE_SSL_REDIRECT": "1"}  # fmt: skip
    web_port, balanced_port, exposed_port = free_port(), free_port(), free_port()
    gunicorn = ["-m", "gunicorn", "casino.wsgi:application", "--config", "python:casino.gunicorn_conf", "--bind",
                f"127.0.0.1:{web_port}", "--worker-class", "gthread", "--workers", "1", "--threads", "2"]  # fmt: skip
    spawn(gunicorn, env=env)
    assert wait_for(lambda: healthy(f"http://127.0.0.1:{web_port}"), 60)
    upstream = {"web": f"127.0.0.1:{web_port}", "live": f"127.0.0.1:{web_port}"}
    with running(port=balanced_port, real_ip_from="127.0.0.1", **upstream), running(port=exposed_port, **upstream):
        # behind the balancer: what it says the client used is what the app sees: no redirect loop
        assert _status_through(balanced_port, "/play/", {"X-Forwarded-Proto": "https"})[0] == 200
        status, location = _status_through(balanced_port, "/play/", {"X-Forwarded-Proto": "http"})
        assert status == 301 and location.startswith("https://")  # a plain-http client is sent to https
        # a client straight at nginx (not the balancer) claiming https: nginx's own scheme, redirected
        status, location = _status_through(exposed_port, "/play/", {"X-Forwarded-Proto": "https"})
        assert status == 301 and location.startswith("https://")
