"""The invariants checked after the run (the soak fails on any violation)."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

from devtools.ha import HaSet
from soak.record import Record, Request, is_final
from soak.services import ROOT
from soak.stack import Stack
from soak.timing import SLACK_S, wait_until


@dataclass
class Findings:
    """What the checks found: each invariant "ok" or "FAILED ...", and the counts the summary reports."""

    checks: dict[str, str]
    redis_keys: dict[str, int]
    requests: dict[str, int]
    http: dict[str, int]


# the management commands that check the database, each with the invariant it stands for
COMMANDS = (
    ("every closed hand verifies (verify_hands --all)", ("verify_hands", "--all")),
    ("the ledger reconciles (reconcile)", ("reconcile",)),
    ("read models equal rebuild_projections", ("rebuild_projections",)),
)


def check_all(stack: Stack, record: Record, stuck: list[str]) -> Findings:
    """Every invariant, on the stack at rest (``stuck``: the tables the watchdog's last look found waiting)."""
    checks: dict[str, str] = {}
    checks["no table stuck past its deadline"] = (
        "ok" if not stuck and not any("still waits" in v for v in record.violations) else "FAILED"
    )
    checks["a failed primary comes back read-only (fenced)"] = check_fenced(stack, record)
    redis_keys = check_redis_keys(stack, record)
    checks["every Redis key may be lost (kit/redis_state.py)"] = _verdict(record, ("Redis key",))
    request_counts = check_requests(stack, record)
    http_counts = check_http(record)
    checks.update(check_commands(stack, record))
    checks["accepted actions applied exactly once, refused ones never"] = _verdict(record, ("applied", "refused ("))
    checks["every answer to a retried request is the first answer"] = _verdict(record, ("answers differ", "stored"))
    checks["no duplicate command or ledger posting"] = _verdict(record, ("times:", "posted"))
    checks["no 5xx but 503 + Retry-After during an outage"] = _verdict(record, (" on /", "without Retry-After on"))
    checks["/healthz 503 exactly while a service is down"] = _verdict(record, ("/healthz",))
    checks["every request answered"] = _verdict(
        record, ("never got an answer", "still waits for an answer", "crashed")
    )
    checks["every process that exited by itself came back"] = _verdict(record, ("exited by itself",))
    return Findings(checks=checks, redis_keys=redis_keys, requests=request_counts, http=http_counts)


def check_commands(stack: Stack, record: Record) -> dict[str, str]:
    """The checking management commands (:data:`COMMANDS`) against the soak's database: each "ok" (with the hands
    ``verify_hands`` checked) or "FAILED", its output then a violation."""
    checks: dict[str, str] = {}
    for name, command in COMMANDS:
        ok, output = run_command(stack, *command, "--json", "--progress", "off")
        checks[name] = "ok" if ok else "FAILED"
        if not ok:
            record.violation(f"{' '.join(command)} failed:\n{output[-3000:]}")
        with contextlib.suppress(ValueError, KeyError):
            result = json.loads(output)
            if command[0] == "verify_hands":
                checks[name] += f" ({result['hands_checked']} hands, {result['hands_verified']} verify)"
    return checks


def check_requests(stack: Stack, record: Record) -> dict[str, int]:
    """Every accepted action applied exactly once, every refused one not at all, every answer the first one."""
    stored, applied = _what_the_database_holds(stack, record)
    counts: Counter[str] = Counter()
    for request in record.requests:
        if request.key is not None:
            _check_request(request, stored, applied, record, counts)
    return dict(counts)


def _what_the_database_holds(
    stack: Stack, record: Record
) -> tuple[dict[tuple[int, str], tuple[int, Any]], dict[tuple[str, str], set[int]]]:
    """The stored first answers ((user id, key) -> (status, body)) and the command versions each key applied
    ((actor, key) -> versions); a key applied twice and a ledger cause posted twice are violations."""
    import psycopg

    with psycopg.connect(stack.admin_url.replace("postgres://", "postgresql://")) as c:
        stored = {
            (int(user), key): (int(status), response)
            for user, key, status, response in c.execute(
                "SELECT user_id, key, status_code, response FROM tables_idempotencyrecord"
            )
        }
        applied: dict[tuple[str, str], set[int]] = defaultdict(set)
        for actor, key, version in c.execute(
            "SELECT metadata->>'actor', metadata->>'idempotency_key', (metadata->>'command_version')::int "
            "FROM tables_event WHERE metadata ? 'idempotency_key'"
        ):
            applied[(actor, key)].add(version)
        duplicates = c.execute(
            "SELECT cause, count(*) FROM ledger_transaction GROUP BY cause HAVING count(*) > 1"
        ).fetchall()
    for cause, n in duplicates:
        record.violation(f"ledger cause {cause} posted {n} times")
    for (actor, key), versions in applied.items():
        if len(versions) > 1:
            record.violation(f"idempotency key {key} of user {actor} applied {len(versions)} times: {sorted(versions)}")
    return stored, applied


def _check_request(
    request: Request,
    stored: dict[tuple[int, str], tuple[int, Any]],
    applied: dict[tuple[str, str], set[int]],
    record: Record,
    counts: Counter[str],
) -> None:
    """One keyed request: answered; every final answer to it (retries, repeats) the same, and the stored first
    one; applied once if accepted, never if refused. Counts it in ``counts``."""
    assert request.key is not None  # (check_requests passes the keyed requests only)
    answer = request.answer
    counts["requests"] += 1
    counts["retried"] += len(request.attempts) > 1
    counts["dropped_attempts"] += sum(a.status is None for a in request.attempts)
    if answer is None:
        record.violation(f"{request.bot} {request.path} {request.body} never got an answer")
        return
    answers = [a for a in (*request.attempts, *request.repeats) if is_final(a)]
    counts["replayed_answers"] += sum(a.replayed for a in answers)
    for other in answers[1:]:
        if (other.status, other.body) != (answer.status, answer.body):
            record.violation(
                f"{request.bot} key {request.key}: answers differ: {answer.status} then {other.status} "
                f"({str(answer.body)[:120]} / {str(other.body)[:120]})"
            )
    first = stored.get((request.user_id, request.key))
    if first is None:
        record.violation(f"{request.bot} key {request.key}: no stored answer for a {answer.status}")
    elif first != (answer.status, answer.body):
        record.violation(f"{request.bot} key {request.key}: the client's answer is not the stored first answer")
    versions = applied.get((str(request.user_id), request.key), set())
    if answer.status in (200, 201):
        counts["accepted"] += 1
        events = answer.body.get("events") or [] if isinstance(answer.body, dict) else []
        if events and len(versions) != 1:
            record.violation(f"{request.bot} key {request.key}: accepted, applied {len(versions)} times")
    else:
        counts["refused"] += 1
        if versions:
            record.violation(f"{request.bot} key {request.key}: refused ({answer.status}) but applied")


def check_http(record: Record) -> dict[str, int]:
    """No 5xx but 503 with Retry-After during an outage; /healthz 503 exactly while a service is down. Behind the
    proxy a long-poll also gets the proxy's 503 (the API's body, ``Retry-After``) while the live server is down:
    before the proxy it saw a dropped connection there."""
    counts: Counter[str] = Counter()
    for path, attempt in record.server_errors:
        counts[f"http_{attempt.status}"] += 1
        # (a web worker killed mid-request: the proxy's 503 for what it was serving)
        outages = {"database", "redis", "live"} if path.startswith("live:") else {"database", "redis", "web"}
        if attempt.status != 503:
            record.violation(f"{attempt.status} on {path}: {str(attempt.body)[:200]}")
        elif not attempt.retry_after:
            record.violation(f"503 without Retry-After on {path}")
        elif not record.covered(outages, attempt.sent, attempt.received):
            record.violation(f"503 on {path} while every service was up: {str(attempt.body)[:200]}")
    for sample in record.health:
        counts[f"healthz_{sample.status or sample.error}"] += 1
        if sample.status is None:
            continue
        if sample.status == 503:
            if not sample.retry_after:
                record.violation("/healthz 503 without Retry-After")
            if not record.covered({"database", "redis", "web"}, sample.sent, sample.received):
                record.violation(f"/healthz said 503 while every service was up: {sample.body}")
        elif sample.status == 200:
            for w in record.windows:
                down = w.down_from is not None and w.down_to is not None and w.service in ("database", "redis")
                if down and w.down_from <= sample.sent and sample.received <= w.down_to:  # type: ignore[operator]
                    record.violation(f"/healthz said 200 while {w.service} was down ({w.kind})")
        else:
            record.violation(f"/healthz answered {sample.status}: {sample.body}")
    for w in record.windows:
        if w.service in ("database", "redis") and w.down_from is not None and w.down_to is not None:
            if w.down_to - w.down_from < 1.0:
                continue
            said = [s for s in record.health if s.status == 503 and w.down_from <= s.received <= w.end + SLACK_S]  # type: ignore[operator]
            if not said:
                record.violation(f"/healthz never said 503 while {w.service} was down ({w.kind})")
    return dict(counts)


def check_fenced(stack: Stack, record: Record) -> str:
    """After a failover (a killed or a partitioned primary): the set is whole again, every fallen primary that is
    not the primary now is a read-only standby, and the programs' multi-host URL reaches the primary."""
    ha = stack.postgres
    if not isinstance(ha, HaSet) or not ha.fallen:
        return "ok (no failover)"
    import psycopg

    try:
        if not wait_until(ha.whole, 60, 0.2):
            record.violation(f"after the failovers the set is not whole: {ha.cluster()}")
            return "FAILED"
        primary = ha.primary
        writable = [name for name in set(ha.fallen) - {primary.name} if not ha.members[name].in_recovery()]
        with psycopg.connect(stack.admin_url.replace("postgres://", "postgresql://"), connect_timeout=5) as c:
            host = str(c.execute("SELECT host(inet_server_addr())").fetchone()[0])  # (through HAProxy)
    except Exception as exc:
        record.violation(f"the old primaries after the failovers: {exc.__class__.__name__}: {exc}")
        return "FAILED"
    for name in writable:
        record.violation(f"the old primary {name} came back accepting writes after the failover")
    if host != primary.address:
        record.violation(f"after the failover the programs' URL reached {host}, not the primary ({primary.address})")
    return "ok" if not writable and host == primary.address else "FAILED"


def check_redis_keys(stack: Stack, record: Record) -> dict[str, int]:
    """Every key left in the soak's Redis is of a family that may be lost (kit/redis_state.py): the reason a
    Redis failover needs nothing more than the restart the soak injects. Returns the keys per family."""
    import redis

    from kit.redis_state import family_of

    counts: Counter[str] = Counter()
    client = redis.Redis.from_url(stack.redis.url, socket_connect_timeout=5, socket_timeout=5)
    try:
        for raw in client.scan_iter(count=1000):
            key = raw.decode(errors="replace")
            family = family_of(key)
            if family is None:
                record.violation(f"Redis key {key!r} is of no family in kit/redis_state.py")
            counts[family.name if family else "unknown"] += 1
    finally:
        client.close()
    return dict(sorted(counts.items()))


def run_command(stack: Stack, *args: str, env: dict[str, str] | None = None) -> tuple[bool, str]:
    """A management command against the soak's database (or ``env``'s): (exit code 0, its stdout or, if it
    failed, all)."""
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env or stack.env, capture_output=True, text=True,
        check=False,
    )  # fmt: skip
    return done.returncode == 0, done.stdout.strip() if done.returncode == 0 else done.stdout + done.stderr


def _verdict(record: Record, needles: tuple[str, ...]) -> str:
    """The verdict of one invariant: "ok", or "FAILED (n)", n the violations that mention one of ``needles``."""
    bad = [v for v in record.violations if any(n in v for n in needles)]
    return "ok" if not bad else f"FAILED ({len(bad)})"


def closed_hands(stack: Stack) -> int:
    """How many hands the run closed (settled or abandoned)."""
    import psycopg

    with psycopg.connect(stack.admin_url.replace("postgres://", "postgresql://")) as c:
        return int(c.execute("SELECT count(*) FROM tables_hand WHERE status <> 'in_play'").fetchone()[0])
