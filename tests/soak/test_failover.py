"""A database failover that loses nothing (issues 34 and 47; docs/reliability.md, "Failover").

Patroni and etcd (devtools/ha.py: etcd and three PostgreSQL members on this machine, each in its own network
namespace) elect the primary, with synchronous replication in strict mode; the programs connect with one multi-host
URL (``target_session_attrs=read-write``). Here: the URL's wiring, the set itself under a writer (the primary's
machine killed, then the new primary partitioned), and compose's description of the same services. The drill under
load runs as the ``pg_failover`` and ``pg_partition`` faults of the suite's short soak (tests/soak/test_soak.py),
which asserts its checks: every action a client saw accepted is there exactly once, every hand verifies, the ledger
reconciles, every waiting table moves on, and the time without service is measured per fault kind.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from hypothesis import given
from hypothesis import strategies as st

from backoffice import dbprovision
from devtools.ha import COMPOSE_MEMBERS, HAPROXY_HEALTHCHECK, HaSet, compose_files, dcs_settings, ha_set, missing
from devtools.pgcluster import libpq
from kit import dburl
from soak.timing import wait_until
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


HA_MISSING = missing()
needs_ha = pytest.mark.skipif(bool(HA_MISSING), reason=f"the Patroni set cannot run here: {HA_MISSING}")


@pytest.fixture
def ha() -> Iterator[HaSet]:
    directory = Path(tempfile.mkdtemp(prefix="casino-ha-"))
    os.chmod(directory, 0o755)  # the servers run as the postgres OS user
    number = None
    try:
        with ha_set(directory, members=3, archive=False) as servers:
            assert servers.network is not None
            number = servers.network.number
            yield servers
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    # taken down whole, whatever happened: no namespace, bridge or veth of the set is left
    left = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    namespaces = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert f"casino-ha{number}-" not in namespaces
    assert not [name for name in (f"h47b{number}", *(f"h47{number}{h}" for h in ("etcd", "a", "b", "c")))
                if f": {name}:" in left or f": {name}@" in left]  # fmt: skip


class Writer(threading.Thread):
    """Inserts 0, 1, 2 ... one commit each, through the set's multi-host URL (as the application's role),
    reconnecting after every failure; ``acknowledged``: the numbers whose COMMIT returned."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.acknowledged: list[int] = []
        self.attempted = 0
        self.done = threading.Event()

    def run(self) -> None:
        # a partitioned server sends no reset: the socket gives up on its own (as casino/settings.py's options do)
        options = {"connect_timeout": 2, "keepalives_idle": 1, "keepalives_interval": 1, "keepalives_count": 2,
                   "tcp_user_timeout": 4000}  # fmt: skip
        conn = None
        while not self.done.is_set():
            try:
                if conn is None:
                    conn = psycopg.connect(self.url, **options)
                n = self.attempted
                self.attempted += 1
                conn.execute("INSERT INTO accepted VALUES (%s)", [n])
                conn.commit()
                self.acknowledged.append(n)
            except psycopg.Error:
                with contextlib.suppress(Exception):
                    conn.close()  # type: ignore[union-attr]
                conn = None
                time.sleep(0.1)
            time.sleep(0.02)

    def stop(self) -> None:
        self.done.set()
        self.join(30)


def stored(ha: HaSet, url: str) -> set[int]:
    with psycopg.connect(url, connect_timeout=5) as conn:
        return {int(r[0]) for r in conn.execute("SELECT n FROM accepted").fetchall()}


@needs_ha
@pytest.mark.slow
def test_patroni_fails_over_a_partitioned_primary_which_is_read_only_and_loses_no_acknowledged_commit(ha):
    """Patroni elects, promotes and demotes: the primary is cut off the network while it runs, as a writer keeps
    committing through HAProxy. Every commit the writer saw acknowledged is on the new primary, and the cut-off
    primary is read-only while still cut off (its Patroni demoted it): never two primaries. (The kill of the
    primary's machine, and this partition, under the bots' load: tests/soak/test_soak.py.)"""
    config = json.load(urllib.request.urlopen(f"http://{ha.primary.address}:8008/config", timeout=5))
    assert config["synchronous_mode"] is True and config["synchronous_mode_strict"] is True
    assert sorted(m["role"] for m in ha.cluster()) == ["leader", "replica", "sync_standby"]
    with psycopg.connect(libpq(ha.url("postgres")), autocommit=True) as conn:
        conn.execute("CREATE DATABASE casino_ha")
    roles = dbprovision.provision(ha.url("casino_ha"), b"test secret")
    with psycopg.connect(libpq(roles.owner_url)) as conn:
        conn.execute("CREATE TABLE accepted (n int PRIMARY KEY)")
        conn.execute(f"GRANT SELECT, INSERT ON accepted TO {roles.app}")
    app_url = libpq(roles.app_url)

    writer = Writer(app_url)
    writer.start()
    assert wait_for(lambda: len(writer.acknowledged) >= 10, timeout=30, interval=0.1)
    old = ha.partition_primary()
    new, _ = ha.wait_new_primary(old, timeout=90)
    assert wait_until(ha.members[old].in_recovery, 20, 0.2)  # still cut off, and read-only: demoted
    before = len(writer.acknowledged)
    assert wait_for(lambda: len(writer.acknowledged) > before + 5, timeout=30, interval=0.1)
    writer.stop()
    assert set(writer.acknowledged) <= stored(ha, app_url)  # nothing acknowledged is lost
    assert stored(ha, app_url) <= set(range(writer.attempted))
    with psycopg.connect(app_url) as conn:  # HAProxy sends the same URL to the new primary
        assert conn.execute("SELECT host(inet_server_addr())").fetchone() == (ha.members[new].address,)
    ha.heal(old)  # the links are back: it rejoins as a standby (pg_rewind if its WAL went further)
    ha.wait(ha.whole, 90, f"{old} did not rejoin")
    assert ha.members[old].in_recovery()


def test_compose_runs_the_same_patroni_set_and_every_url_goes_through_haproxy():
    """docker-compose.yml describes devtools/ha.py's set (Docker is not runnable here: statically): etcd, three
    members under Patroni with the same settings (docker/'s generated files are what devtools/ha.py makes now),
    HAProxy in front as ``db``, and every process's URL naming ``db``."""
    import yaml

    for name, text in compose_files().items():  # `python -m devtools.ha compose` was run after the last change
        assert (ROOT / name).read_text() == text, name
    patroni = yaml.safe_load((ROOT / "docker/patroni/patroni.yml").read_text())
    dcs = patroni["bootstrap"]["dcs"]
    assert dcs["synchronous_mode"] is True and dcs["synchronous_mode_strict"] is True
    assert dcs == dcs_settings(archive=True)  # the suite's set: the same plus its disposable fsync and buffers
    assert "pgbackrest" in patroni["postgresql"]["parameters"]["archive_command"]
    assert patroni["bootstrap"]["post_bootstrap"] == "/usr/local/bin/casino-post-bootstrap"
    dockerfile = (ROOT / "docker/patroni/Dockerfile").read_text()
    assert "COPY patroni/post-bootstrap.sh /usr/local/bin/casino-post-bootstrap" in dockerfile
    assert "patroni pgbackrest" in dockerfile and 'CMD ["patroni", "/etc/patroni/patroni.yml"]' in dockerfile

    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert services["etcd"]["image"].startswith("quay.io/coreos/etcd:")
    for member in COMPOSE_MEMBERS:
        env = services[member]["environment"]
        assert env["PATRONI_NAME"] == member and env["PATRONI_ETCD3_HOSTS"] == "etcd:2379"
        assert env["PATRONI_POSTGRESQL_CONNECT_ADDRESS"] == f"{member}:5432"
        assert services[member]["build"] == {"context": "docker", "dockerfile": "patroni/Dockerfile"}
        assert "pgbackrest:/var/lib/pgbackrest" in services[member]["volumes"]  # the shared repository
        assert services[member]["depends_on"]["etcd"]["condition"] == "service_healthy"
    proxy = services["db"]
    assert proxy["image"].startswith("haproxy:") and set(proxy["depends_on"]) == set(COMPOSE_MEMBERS)
    assert "./docker/haproxy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" in proxy["volumes"]
    assert proxy["healthcheck"]["test"] == ["CMD", "bash", "-c", HAPROXY_HEALTHCHECK]  # a primary behind it
    urls = [compose["x-app-env"]["DATABASE_URL"], services["migrate"]["environment"]["MIGRATE_DATABASE_URL"],
            services["signer"]["environment"]["DATABASE_URL"]]  # fmt: skip
    for url in (re.sub(r"\$\{[^}]*\}", "secret", url) for url in urls):  # (as compose substitutes them)
        assert dburl.hosts_of(url) == [("db", "5432")], url
        assert url.endswith("?target_session_attrs=read-write"), url
    for name in ("migrate", "web", "live", "worker", "beat", "signer", "lab-worker"):
        assert {"db", "migrate"} & set(services[name]["depends_on"]), name
    assert services["migrate"]["depends_on"]["db"]["condition"] == "service_healthy"
