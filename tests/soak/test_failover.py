"""A database failover that loses nothing (issue 34; docs/reliability.md, "Failover").

A primary with a synchronous standby (devtools/replication.py: two private clusters on this machine), the programs
connecting with one multi-host URL (``target_session_attrs=read-write``), and the drill: while bots play, kill -9
the primary, promote the standby, fence the old primary. Afterwards every action a client saw accepted is there
exactly once, every hand verifies, the ledger reconciles, every waiting table moves on, and the time without
service is measured (the soak's checks, soak/checks.py). Here: the pair, its roles, the fence and the wiring; the
drill itself runs as the ``pg_failover`` fault of the suite's short soak (tests/soak/test_soak.py), which asserts
its checks.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psycopg
import pytest
from hypothesis import given
from hypothesis import strategies as st

from backoffice import dbprovision
from devtools.pgcluster import Cluster, libpq
from devtools.replication import ReplicationPair
from kit import dburl
from tests.conftest import ROOT, wait_for


def test_a_multi_host_url_becomes_libpq_host_and_port_lists():
    url = "postgres://app:s%40cret@db-a:5433,db-b/casino?target_session_attrs=read-write&connect_timeout=3"
    config = dburl.parse(url, engine="django.db.backends.postgresql")
    assert (config["HOST"], config["PORT"]) == ("db-a,db-b", "5433,5432")
    assert (config["USER"], config["PASSWORD"], config["NAME"]) == ("app", "s@cret", "casino")
    assert config["OPTIONS"] == {"target_session_attrs": "read-write", "connect_timeout": 3}
    single = dburl.parse("postgres://app@db:5432/casino")
    assert (single["HOST"], single["PORT"]) == ("db", 5432)
    assert dburl.hosts_of("postgres://u@[::1]:5433,db/x") == [("::1", "5433"), ("db", "5432")]


def test_a_socket_directory_in_a_multi_host_url_reaches_libpq_decoded():
    """The README's default path: the embedded server is reached over a Unix socket, whose directory a URL holds
    percent-encoded; libpq wants the directory itself in its host list."""
    url = "postgres://app:pw@127.0.0.1:5499,%2Fwork%2Fmain%2F.local%2Fpgdata:5432/casino"
    config = dburl.parse(url)
    assert config["HOST"] == "127.0.0.1,/work/main/.local/pgdata"
    assert config["PORT"] == "5499,5432"
    assert dburl.hosts_of(dburl.with_hosts(url, dburl.hosts_of(url))) == dburl.hosts_of(url)


hosts = st.lists(
    st.tuples(
        st.one_of(
            st.from_regex(r"[a-z][a-z0-9-]{0,20}", fullmatch=True),
            st.ip_addresses().map(str),
            st.from_regex(r"(/[a-z0-9._-]{1,12}){1,4}", fullmatch=True),  # a Unix socket directory (make run's)
        ),
        st.integers(1, 65535).map(str),
    ),
    min_size=1,
    max_size=4,
)


@given(hosts)
def test_any_host_list_survives_the_url_and_reaches_libpq_as_lists(pairs):
    url = dburl.with_hosts("postgres://app:pw@x/casino?target_session_attrs=read-write", pairs)
    assert dburl.hosts_of(url) == pairs
    config = dburl.parse(url)
    assert config["NAME"] == "casino" and config["USER"] == "app" and config["PASSWORD"] == "pw"
    if len(pairs) > 1:
        assert config["HOST"].split(",") == [h for h, _ in pairs]
        assert config["PORT"].split(",") == [p for _, p in pairs]


@pytest.mark.django_db
def test_the_settings_connect_through_a_multi_host_url(child_env):
    """Django (psycopg 3 and its pool) takes the URL as libpq does: the first host refuses, the second answers."""
    from tests.conftest import child_database_url, free_port

    url = child_database_url()
    hosts = dburl.hosts_of(url)
    multi = dburl.with_hosts(url, [("127.0.0.1", str(free_port())), *hosts]) + "?target_session_attrs=read-write"
    code = (
        "import django; django.setup()\n"
        "from django.db import connection\n"
        "from django.conf import settings\n"
        "d = settings.DATABASES['default']\n"
        "print(d['HOST'], d['PORT'], d['OPTIONS']['target_session_attrs'], 'pool' in d['OPTIONS'])\n"
        "connection.ensure_connection()\n"
        "print(connection.connection.info.port)\n"
    )
    env = {**child_env, "DATABASE_URL": multi, "DJANGO_SETTINGS_MODULE": "casino.settings", "DEBUG": "1"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
    settings_line, port_line = done.stdout.split("\n")[:2]
    assert settings_line.split()[2:] == ["read-write", "True"]
    assert int(port_line) == int(hosts[0][1])


def only(url: str, cluster: Cluster) -> str:
    """``url`` (a role's, of the pair) naming one server of the pair, whatever it accepts."""
    return libpq(dburl.with_hosts(url, [("127.0.0.1", str(cluster.port))]).split("?")[0])


@pytest.fixture
def pair() -> Iterator[ReplicationPair]:
    directory = Path(tempfile.mkdtemp(prefix="casino-pair-"))
    os.chmod(directory, 0o755)  # the servers run as the postgres OS user when we are root
    servers = ReplicationPair(directory)
    try:
        servers.init()
        yield servers
    finally:
        servers.shutdown()
        shutil.rmtree(directory, ignore_errors=True)


def test_the_standby_is_synchronous_has_the_roles_takes_over_the_old_primary_stays_fenced_and_rejoins(pair):
    assert pair.replication() == [(pair.standby.name, "streaming", "sync")]
    superuser = pair.url("postgres")
    with psycopg.connect(libpq(superuser), autocommit=True) as conn:
        conn.execute("CREATE DATABASE casino_pair")
    roles = dbprovision.provision(pair.url("casino_pair"), b"test secret")
    with psycopg.connect(libpq(roles.owner_url)) as conn:
        conn.execute("CREATE TABLE accepted (n int)")
        conn.execute(f"GRANT SELECT, INSERT ON accepted TO {roles.app}")
    with psycopg.connect(libpq(roles.app_url)) as conn:
        for n in range(50):  # each commit acknowledged: on the standby too
            conn.execute("INSERT INTO accepted VALUES (%s)", [n])
            conn.commit()

    # the roles (the catalog is replicated physically) are on the standby, and it serves them read-only (a commit
    # returns once the standby has flushed it; replaying it there follows within moments)
    def replayed() -> bool:
        names = {r[0] for r in pair.standby.query("SELECT rolname FROM pg_roles")}
        return {roles.owner, roles.app, roles.signer} <= names and pair.standby.query(
            "SELECT pg_last_wal_replay_lsn() >= pg_last_wal_receive_lsn()"
        )[0][0]

    assert wait_for(replayed, timeout=20, interval=0.1)
    with psycopg.connect(only(roles.app_url, pair.standby)) as conn:
        assert conn.execute("SELECT count(*) FROM accepted").fetchone() == (50,)
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            conn.execute("INSERT INTO accepted VALUES (-1)")

    # synchronous: with the standby stopped, a commit is not acknowledged; it is once the standby is back
    pair.standby.stop("fast")
    with ThreadPoolExecutor(1) as pool, psycopg.connect(libpq(roles.app_url)) as conn:
        conn.execute("INSERT INTO accepted VALUES (49)")
        commit = pool.submit(conn.commit)
        time.sleep(1.5)
        assert not commit.done()
        pair.standby.start()
        commit.result(timeout=30)
    assert pair.wait_synchronous(30)

    old, new = pair.primary, pair.standby
    times = pair.failover()
    assert times.promote_s < 30
    with psycopg.connect(libpq(roles.app_url)) as conn:  # the same URL: now the promoted standby
        assert conn.info.port == new.port
        assert conn.execute("SELECT count(*) FROM accepted").fetchone() == (51,)  # nothing acknowledged is lost
        conn.execute("INSERT INTO accepted VALUES (50)")
        conn.commit()

    old.start()  # a supervisor starts the old primary again: it comes back a read-only standby
    assert old.in_recovery()
    with psycopg.connect(only(roles.app_url, old)) as conn, pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
        conn.execute("INSERT INTO accepted VALUES (-1)")
    with psycopg.connect(libpq(roles.app_url)) as conn:  # it is listed first, and still never chosen
        assert conn.info.port == new.port

    # rebuilt (pg_rewind) as the new primary's synchronous standby, the pair can fail over again, back to the first
    pair.rejoin()
    assert pair.replication() == [(old.name, "streaming", "sync")]
    with psycopg.connect(libpq(roles.app_url)) as conn:
        conn.execute("INSERT INTO accepted VALUES (51)")
        conn.commit()
    pair.failover()
    with psycopg.connect(libpq(roles.app_url)) as conn:
        assert conn.info.port == old.port
        assert conn.execute("SELECT count(*) FROM accepted").fetchone() == (53,)


def test_compose_runs_the_pair_and_every_url_names_both():
    """docker-compose.yml documents the pair (Docker is not runnable here: statically)."""
    import yaml

    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    primary, standby = services["db"], services["db-standby"]
    assert "synchronous_standby_names=db_standby" in primary["command"]
    assert "synchronous_commit=on" in primary["command"] and "wal_level=replica" in primary["command"]
    script = standby["command"][-1]
    assert "pg_basebackup -h db -U replicator" in script and '"application_name=db_standby"' in script
    assert "synchronous_standby_names=" in script  # once promoted, it waits for no standby of its own
    assert standby["depends_on"]["db"]["condition"] == "service_healthy" and "healthcheck" in standby
    assert "DB_REPLICATION_PASSWORD" in primary["environment"]
    roles_script = (ROOT / "docker/postgres-initdb/10-casino-roles.sh").read_text()
    assert "LOGIN REPLICATION NOSUPERUSER" in roles_script and "host replication" in roles_script
    urls = [compose["x-app-env"]["DATABASE_URL"], services["migrate"]["environment"]["MIGRATE_DATABASE_URL"],
            services["signer"]["environment"]["DATABASE_URL"]]  # fmt: skip
    for url in (re.sub(r"\$\{[^}]*\}", "secret", url) for url in urls):  # (as compose substitutes them)
        assert [host for host, _ in dburl.hosts_of(url)] == ["db", "db-standby"], url
        assert url.endswith("?target_session_attrs=read-write"), url
    # nothing starts before the standby streams (until then the primary's commits wait): directly or after migrate
    assert services["migrate"]["depends_on"]["db-standby"]["condition"] == "service_healthy"
    for name in ("web", "live", "worker", "beat", "signer", "lab-worker"):
        assert {"db-standby", "migrate"} & set(services[name]["depends_on"]), name
