"""The high-availability set on this machine: etcd and PostgreSQL members under Patroni, each in a network namespace
of its own (docs/reliability.md, "Failover"; docs/operations.md, "High availability").

    python -m devtools.ha up [--dir DIR] [--members 3]   # (make ha) bring the set up, print the URL, until Ctrl-C
    python -m devtools.ha compose                        # write compose's docker/patroni/patroni.yml, haproxy.cfg

Patroni (Debian's ``patroni``) elects the primary through etcd (Debian's ``etcd-server``, the v3 API), promotes
a standby when the primary's leader key expires and demotes a primary that cannot renew it; replication is
synchronous in strict mode (``synchronous_mode`` and ``synchronous_mode_strict``: a commit returns once a
standby has flushed it, and a primary with no synchronous standby commits nothing). The product promotes and
fences nothing of its own.

The network: a bridge in the root namespace (``10.47.<n>.1/24``, ``n`` chosen per set so that two sets never
meet), etcd at ``10.47.<n>.10`` and the members at ``.11``, ``.12``, ... each in its own namespace
(``ip netns``), joined to the bridge by a veth pair. Every member listens on its namespace's own port 5432
(never the machine's) and its REST API on 8008. The programs, in the root namespace, reach the primary through
HAProxy on a free port of 127.0.0.1, which asks each member's Patroni ``GET /primary`` (the multi-host URL,
kit/dburl.py, also names the set: :meth:`HaSet.multi_host_url`, slow under a partition). A partition is real: the
member's links go down while its Patroni and PostgreSQL keep running.

WAL archiving and backups: pgBackRest (Debian's ``pgbackrest``), a repository in the set's directory shared by
the members (on one machine; elsewhere a shared volume or an object store), ``archive_command`` set through
Patroni's parameters. :class:`Backups` takes full and incremental backups and restores a scratch cluster to a
chosen moment.

Everything is cleaned up by :meth:`HaSet.shutdown` (namespaces, bridge, processes), and a set whose owner died is swept
by the next one that starts (``/run/casino-ha``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from devtools.pgcluster import libpq, postgres_bindir

OWNERS = Path("/run/casino-ha")  # one file per set: its subnet number, holding the owner's pid
SUBNET = "10.47"
PG_PORT = 5432
REST_PORT = 8008
ETCD_PORT = 2379
STANZA = "casino"
# Patroni's timings: a primary renews its leader key every LOOP_WAIT s; a key not renewed for TTL s expires and a
# synchronous standby takes over; a primary that cannot reach etcd for RETRY_TIMEOUT s demotes itself (so before
# the key expires: loop_wait + 2 * retry_timeout <= ttl)
TTL_S = 10
LOOP_WAIT_S = 1
RETRY_TIMEOUT_S = 4


# a member whose data cannot follow the new primary (pg_rewind failed, a diverged timeline) copies it anew
REBUILD = {"remove_data_directory_on_rewind_failure": True, "remove_data_directory_on_diverged_timelines": True}


def dcs_settings(*, archive: bool, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The cluster-wide settings Patroni keeps in etcd (``bootstrap.dcs``), here and in compose's
    docker/patroni/patroni.yml alike: the timings, synchronous replication in strict mode (a commit returns once a
    synchronous standby has flushed it; with none, nothing commits), only a standby with all the WAL may be
    promoted, pg_rewind for a demoted primary, and the archive (pgBackRest) when ``archive``."""
    parameters: dict[str, Any] = {
        "max_connections": 200, "wal_level": "replica", "hot_standby": "on", "max_wal_senders": 10,
        "max_replication_slots": 10, "wal_log_hints": "on", "wal_keep_size": "256MB",
        "wal_sender_timeout": "5s", "wal_receiver_timeout": "5s",
    }  # fmt: skip
    if archive:
        parameters.update(archive_mode="on", archive_timeout="10s")
    parameters.update(extra or {})
    return {
        "ttl": TTL_S,
        "loop_wait": LOOP_WAIT_S,
        "retry_timeout": RETRY_TIMEOUT_S,
        "maximum_lag_on_failover": 0,
        "synchronous_mode": True,
        "synchronous_mode_strict": True,
        "postgresql": {"use_pg_rewind": True, "use_slots": True, "parameters": parameters},
    }


def haproxy_config(bind: str, servers: list[tuple[str, str]], *, docker_dns: bool = False) -> str:
    """HAProxy in front of the members (here and in compose's docker/haproxy/haproxy.cfg): every connection goes
    to the member whose Patroni answers 200 on ``GET /primary`` (asked every 0.5 s), and every session of a member
    marked down (a demoted or unreachable primary) is closed, so a client never waits on a server that lost its
    leader key. ``servers``: (name, address) of each member; ``docker_dns``: names resolved by Docker's DNS, also
    of a member not started yet."""
    resolve = " resolvers docker init-addr last,libc,none" if docker_dns else ""
    listed = "".join(
        f"    server {name} {address}:{PG_PORT} check port {REST_PORT}{resolve}\n" for name, address in servers
    )
    return (
        "global\n    maxconn 2000\n"
        + ("resolvers docker\n    nameserver dns 127.0.0.11:53\n    hold valid 5s\n" if docker_dns else "")
        +
        "defaults\n    mode tcp\n    timeout connect 2s\n    timeout client 1h\n    timeout server 1h\n"
        "    timeout check 1s\n"
        f"listen primary\n    bind {bind}\n"
        "    option httpchk GET /primary\n    http-check expect status 200\n"
        "    default-server inter 500ms fastinter 250ms downinter 500ms fall 2 rise 1 "
        "on-marked-down shutdown-sessions\n"
    ) + listed + (STATS if docker_dns else "")


# compose's healthcheck of HAProxy reads its statistics (a server UP: there is a primary behind it)
STATS = "listen stats\n    mode http\n    bind 127.0.0.1:8404\n    stats enable\n    stats uri /stats\n"
HAPROXY_HEALTHCHECK = (
    "exec 3<>/dev/tcp/127.0.0.1/8404 && printf 'GET /stats;csv HTTP/1.0\\r\\n\\r\\n' >&3 && grep -q ',UP,' <&3"
)

COMPOSE_MEMBERS = ("db-a", "db-b", "db-c")


def compose_files() -> dict[str, str]:
    """docker/'s files for compose's Patroni set, as this module makes them (``python -m devtools.ha compose``
    writes them; tests/soak/test_failover.py checks that the checked-in ones are these)."""
    patroni = {
        "scope": "casino",
        # PATRONI_NAME, PATRONI_RESTAPI_CONNECT_ADDRESS, PATRONI_POSTGRESQL_CONNECT_ADDRESS, PATRONI_ETCD3_HOSTS and
        # the passwords come from compose's environment
        "restapi": {"listen": "0.0.0.0:8008"},
        "bootstrap": {
            "dcs": dcs_settings(archive=True),
            "initdb": [{"encoding": "UTF8"}, {"auth-local": "trust"}, {"auth-host": "scram-sha-256"}],
            "post_bootstrap": "/usr/local/bin/casino-post-bootstrap",
        },
        "postgresql": {
            "listen": f"0.0.0.0:{PG_PORT}",
            "data_dir": "/var/lib/postgresql/data/pgdata",
            "bin_dir": "/usr/lib/postgresql/16/bin",  # (docker/patroni/Dockerfile's PostgreSQL)
            "pgpass": "/tmp/pgpass",
            "parameters": {
                "unix_socket_directories": "/var/run/postgresql",
                "archive_command": f"pgbackrest --stanza={STANZA} archive-push %p",
                "password_encryption": "scram-sha-256",
            },
            "pg_hba": [
                "local all all trust",
                "host replication replicator all scram-sha-256",
                "host all all all scram-sha-256",
            ],
            **REBUILD,
        },
    }
    header = "# Generated by `python -m devtools.ha compose` (devtools/ha.py): change it there.\n"
    return {
        "docker/patroni/patroni.yml": header + json.dumps(patroni, indent=2) + "\n",
        "docker/haproxy/haproxy.cfg": header
        + haproxy_config(f"0.0.0.0:{PG_PORT}", [(name, name) for name in COMPOSE_MEMBERS], docker_dns=True),
    }


class NoPrimary(RuntimeError):
    """No member of a new set became primary in time."""


class Unavailable(RuntimeError):
    """What the HA set needs is missing here (not root, no ``ip netns``, no Patroni, etcd or pgBackRest)."""


def missing() -> str:
    """Why the HA set cannot run on this machine, or "" when it can."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    for program in ("ip", "patroni", "etcd", "haproxy", "runuser"):
        if shutil.which(program) is None:
            return f"{program} is not installed (.ci/run installs Debian's patroni, etcd-server, haproxy, pgbackrest)"
    if not (postgres_bindir() / "initdb").exists():
        return "no PostgreSQL server binaries"
    probe = f"casino-ha-probe-{os.getpid()}"
    done = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True, check=False)
    if done.returncode:
        return f"ip netns add failed: {done.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True, check=False)
    return ""


def sh(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(list(args), capture_output=True, text=True, check=False, timeout=60)
    if check and done.returncode:
        raise RuntimeError(f"{' '.join(args)}: {done.stderr.strip() or done.stdout.strip()}")
    return done


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Network:
    """A bridge and one namespace per host, on the private subnet ``10.47.<number>.0/24``."""

    def __init__(self, number: int) -> None:
        self.number = number
        self.bridge = f"h47b{number}"
        self.gateway = f"{SUBNET}.{number}.1"
        self.hosts: dict[str, str] = {}  # name -> address

    def namespace(self, host: str) -> str:
        return f"casino-ha{self.number}-{host}"

    def _veth(self, host: str) -> str:
        return f"h47{self.number}{host}"[:15]

    @classmethod
    def claim(cls) -> Network:
        """A subnet number no live set holds (sets of dead owners are swept first), recorded as this process's."""
        OWNERS.mkdir(parents=True, exist_ok=True)
        for owner in OWNERS.iterdir():
            with contextlib.suppress(ValueError, OSError):
                if not _alive(int(owner.read_text().split()[0])):
                    cls(int(owner.name)).remove()
        for number in random.sample(range(1, 255), 254):
            try:
                with (OWNERS / str(number)).open("x") as f:
                    f.write(f"{os.getpid()}\n")
            except FileExistsError:
                continue
            if Path(f"/sys/class/net/h47b{number}").exists():  # someone else's, unrecorded
                (OWNERS / str(number)).unlink()
                continue
            return cls(number)
        raise Unavailable("no free subnet for an HA set")

    def create(self) -> None:
        sh("ip", "link", "add", self.bridge, "type", "bridge")
        sh("ip", "addr", "add", f"{self.gateway}/24", "dev", self.bridge)
        sh("ip", "link", "set", self.bridge, "up")

    def add_host(self, host: str, last_octet: int) -> str:
        ns, veth, address = self.namespace(host), self._veth(host), f"{SUBNET}.{self.number}.{last_octet}"
        sh("ip", "netns", "add", ns)
        sh("ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns)
        sh("ip", "link", "set", veth, "master", self.bridge, "up")
        sh("ip", "-n", ns, "addr", "add", f"{address}/24", "dev", "eth0")
        sh("ip", "-n", ns, "link", "set", "eth0", "up")
        sh("ip", "-n", ns, "link", "set", "lo", "up")
        self.hosts[host] = address
        return address

    def cut(self, host: str) -> None:
        """Partition ``host``: both ends of its link go down; its processes keep running."""
        sh("ip", "-n", self.namespace(host), "link", "set", "eth0", "down")
        sh("ip", "link", "set", self._veth(host), "down")

    def heal(self, host: str) -> None:
        sh("ip", "link", "set", self._veth(host), "up")
        sh("ip", "-n", self.namespace(host), "link", "set", "eth0", "up")

    def pids(self, host: str) -> list[int]:
        done = sh("ip", "netns", "pids", self.namespace(host), check=False)
        return [int(p) for p in done.stdout.split()]

    def kill_all(self, host: str) -> None:
        """``kill -9`` every process of the host's namespace at once (a dead machine)."""
        for pid in self.pids(host):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    def exec(self, host: str, *argv: str) -> list[str]:
        return ["ip", "netns", "exec", self.namespace(host), *argv]

    def own(self, pid: int) -> None:
        """Record a process of the set that runs outside its namespaces (HAProxy), for :meth:`remove`."""
        with (OWNERS / str(self.number)).open("a") as f:
            f.write(f"{pid}\n")

    def remove(self) -> None:
        """Kill every process of every namespace of the set and the ones it recorded (:meth:`own`), delete the
        namespaces and the bridge, release the number."""
        import psutil

        with contextlib.suppress(OSError, ValueError):
            for pid in (OWNERS / str(self.number)).read_text().split()[1:]:
                with contextlib.suppress(psutil.Error):
                    process = psutil.Process(int(pid))
                    if "haproxy" in process.name():  # (the pid may have been reused since)
                        process.kill()
        prefix = f"casino-ha{self.number}-"
        listed = sh("ip", "netns", "list", check=False).stdout.split("\n")
        names = [line.split()[0] for line in listed if line.startswith(prefix)]
        for ns in names:
            for _ in range(50):
                pids = [int(p) for p in sh("ip", "netns", "pids", ns, check=False).stdout.split()]
                if not pids:
                    break
                for pid in pids:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                time.sleep(0.1)
            sh("ip", "netns", "del", ns, check=False)
            # the root end of its veth pair (the kernel may keep a deleted namespace a while: its links with it)
            sh("ip", "link", "del", self._veth(ns.removeprefix(prefix)), check=False)
        sh("ip", "link", "del", self.bridge, check=False)
        (OWNERS / str(self.number)).unlink(missing_ok=True)


@dataclass
class Member:
    """One PostgreSQL server under Patroni, in its namespace."""

    name: str
    address: str
    directory: Path
    proc: subprocess.Popen[bytes] | None = None

    @property
    def data(self) -> Path:
        return self.directory / "data"

    @property
    def socket_dir(self) -> Path:
        return self.directory  # its Unix socket, reachable from every namespace (a path, not an address)

    @property
    def log(self) -> Path:
        return self.directory / "patroni.log"

    def local_url(self, database: str = "postgres") -> str:
        """A superuser's URL of this member alone, through its Unix socket (whatever the network does)."""
        return f"postgresql://postgres@/{database}?host={self.socket_dir}&port={PG_PORT}"

    def query(self, sql: str, database: str = "postgres", timeout: int = 5) -> list[tuple[Any, ...]]:
        import psycopg

        with psycopg.connect(self.local_url(database), autocommit=True, connect_timeout=timeout) as conn:
            cursor = conn.execute(sql)
            return list(cursor.fetchall()) if cursor.description else []

    def in_recovery(self) -> bool:
        return bool(self.query("SELECT pg_is_in_recovery()")[0][0])

    def postmaster_pid(self) -> int | None:
        with contextlib.suppress(OSError, ValueError, IndexError):
            return int((self.data / "postmaster.pid").read_text().split()[0])
        return None


def _chown(path: Path) -> None:
    import pwd

    entry = pwd.getpwnam("postgres")
    for root, dirs, files in os.walk(path):
        for name in (root, *(os.path.join(root, d) for d in dirs), *(os.path.join(root, f) for f in files)):
            os.chown(name, entry.pw_uid, entry.pw_gid)


class HaSet:
    """etcd and ``members`` PostgreSQL servers under Patroni, each in its namespace; see the module's text.

    It stands in for one server where the soak expects one (``url``, ``init``, ``shutdown``)."""

    restartable = True

    def __init__(self, directory: Path, members: int = 3, archive: bool = True) -> None:
        self.directory = directory
        self.count = members
        self.archive = archive
        self.bindir = postgres_bindir()
        self.network: Network | None = None
        self.members: dict[str, Member] = {}
        self.etcd: subprocess.Popen[bytes] | None = None
        self.haproxy: subprocess.Popen[bytes] | None = None
        self.proxy_port = 0
        self.etcd_address = ""
        self.failovers = 0
        self.fallen: list[str] = []  # the members that were primary when a fault took them (the fence check's)

    # set up and down --------------------------------------------------------------------------------------------

    def init(self) -> None:
        """Network, etcd, the members; returns once there is a primary with a synchronous standby.

        A first election that never comes is tried once more from scratch: twice, a set started in the busiest
        first minute of the whole suite (four workers creating and migrating their databases) saw its first
        member's bootstrap never finish ("bootstrap in progress" for three minutes), while the same set alone, or
        later in the run, elects in seconds. The first attempt's logs go to stderr."""
        try:
            self._init_once()
        except NoPrimary as first:
            print(f"HA set: {first}; starting the set again from scratch", file=sys.stderr)
            self._reset()
            self._init_once()

    def _reset(self) -> None:
        """Everything of a failed start gone: processes, network, files."""
        self.shutdown()
        for child in self.directory.iterdir():
            if child.is_dir():
                shutil.rmtree(child, ignore_errors=True)
            else:
                child.unlink(missing_ok=True)
        self.network, self.members, self.etcd, self.haproxy = None, {}, None, None

    def _init_once(self) -> None:
        reason = missing()
        if reason:
            raise Unavailable(reason)
        self.directory.mkdir(parents=True, exist_ok=True)
        os.chmod(self.directory, 0o755)
        self.network = Network.claim()
        try:
            self.network.create()
            self.etcd_address = self.network.add_host("etcd", 10)
            self._start_etcd()
            for i in range(self.count):
                name = "abcdefgh"[i]
                address = self.network.add_host(name, 11 + i)
                self.members[name] = Member(name, address, self.directory / name)
            if self.archive:
                self.backups.configure()
            for member in self.members.values():
                self._write_config(member)
                self.start_member(member.name)
                if not self.primary_name():  # the first bootstraps alone; the others copy it
                    self.wait(lambda: self.primary_name() is not None, 120, "no primary was elected", NoPrimary)
                    if self.archive:
                        self.backups.create_stanza()
            self.wait(self.whole, 120, "the standbys never all streamed")
            self._start_haproxy()
            # HAProxy starts believing every server up, until two checks fail (a standby's /primary answers 503)
            self.wait(lambda: all(self.accepts_writes() for _ in range(5)), 30, "HAProxy never kept to the primary")
        except BaseException:
            self.shutdown()
            raise

    def whole(self) -> bool:
        """A primary, a synchronous standby, and every other member streaming."""
        with contextlib.suppress(Exception):
            members = self.cluster()
            roles = sorted(m["role"] for m in members)
            leader = next(m for m in members if m["role"] == "leader")
            # every standby runs on the leader's timeline (a demoted primary not yet rewound is on its old one)
            # and has a measured lag: it replicates
            following = all(
                m["state"] in ("running", "streaming") and m.get("timeline") == leader.get("timeline")
                and isinstance(m.get("lag"), int)
                for m in members if m is not leader
            )  # fmt: skip
            return len(members) == self.count and following and roles.count("leader") == 1 and "sync_standby" in roles
        return False

    def wait(self, condition: Any, timeout: float, failure: str, error: type[Exception] = RuntimeError) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if condition():
                return
            time.sleep(0.2)
        raise error(f"{failure} (see {self.directory}/*/patroni.log)\n{self.log_tails()}")

    def log_tails(self, lines: int = 40) -> str:
        """The last lines of etcd's and every member's log: what a failure message carries, since the set's
        directory goes with it."""
        tails = []
        for path in [self.directory / "etcd.log", *sorted(self.directory.glob("*/patroni.log"))]:
            with contextlib.suppress(OSError):
                text = path.read_text(errors="replace").splitlines()[-lines:]
                tails.append(f"--- {path.relative_to(self.directory)}\n" + "\n".join(text))
        return "\n".join(tails)

    def shutdown(self) -> None:
        """Stop everything and remove the network (always safe to call, also half set up)."""
        for member in self.members.values():
            if member.proc is not None and member.proc.poll() is None:
                member.proc.terminate()
        for member in self.members.values():
            if member.proc is not None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    member.proc.wait(15)
        if self.haproxy is not None and self.haproxy.poll() is None:
            self.haproxy.kill()
        if self.network is not None:
            self.network.remove()
        for proc in (self.etcd, self.haproxy, *(m.proc for m in self.members.values())):
            if proc is not None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(5)

    # etcd and Patroni ------------------------------------------------------------------------------------------

    def _start_etcd(self) -> None:
        assert self.network is not None
        data = self.directory / "etcd"
        data.mkdir(parents=True, exist_ok=True)
        url = f"http://{self.etcd_address}"
        argv = self.network.exec(
            "etcd", "etcd", "--name", "etcd", "--data-dir", str(data),
            "--listen-client-urls", f"{url}:{ETCD_PORT}", "--advertise-client-urls", f"{url}:{ETCD_PORT}",
            "--listen-peer-urls", f"{url}:2380", "--initial-advertise-peer-urls", f"{url}:2380",
            "--initial-cluster", f"etcd={url}:2380", "--log-level", "warn",
        )  # fmt: skip
        with (self.directory / "etcd.log").open("ab") as log:
            self.etcd = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def haproxy_config(self) -> str:
        servers = [(m.name, m.address) for m in self.members.values()]
        return haproxy_config(f"127.0.0.1:{self.proxy_port}", servers)

    def _start_haproxy(self) -> None:
        from devtools.pgcluster import free_port

        self.proxy_port = free_port()
        config = self.directory / "haproxy.cfg"
        config.write_text(self.haproxy_config())
        with (self.directory / "haproxy.log").open("ab") as log:
            self.haproxy = subprocess.Popen(
                ["haproxy", "-db", "-f", str(config)], stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        assert self.network is not None
        self.network.own(self.haproxy.pid)
        time.sleep(1.5)

    def patroni_config(self, member: Member) -> dict[str, Any]:
        """Patroni's configuration of ``member`` (written as YAML; JSON is YAML): :func:`dcs_settings` (the same
        as compose's, docker/patroni/patroni.yml), and this machine's addresses, paths and trust."""
        local = {"unix_socket_directories": str(member.socket_dir)}
        if self.archive:  # (each member's own: pgBackRest is told which data directory pushes)
            local["archive_command"] = self.backups.archive_command(member)
        return {
            "scope": "casino",
            "name": member.name,
            "restapi": {"listen": f"{member.address}:{REST_PORT}", "connect_address": f"{member.address}:{REST_PORT}"},
            "etcd3": {"hosts": [f"{self.etcd_address}:{ETCD_PORT}"]},
            "bootstrap": {
                # disposable, like every cluster here: fsync off survives kill -9 of PostgreSQL, not of the OS
                "dcs": dcs_settings(archive=self.archive, extra={"fsync": "off", "shared_buffers": "64MB"}),
                "initdb": [{"encoding": "UTF8"}, {"auth": "trust"}],
            },
            "postgresql": {
                "listen": f"{member.address},127.0.0.1:{PG_PORT}",
                "connect_address": f"{member.address}:{PG_PORT}",
                "data_dir": str(member.data),
                "bin_dir": str(self.bindir),
                "pgpass": str(member.directory / "pgpass"),
                "authentication": {
                    "superuser": {"username": "postgres"},
                    "replication": {"username": "postgres"},
                    "rewind": {"username": "postgres"},
                },
                "parameters": local,
                "pg_hba": [
                    "local all all trust",
                    f"host all all {SUBNET}.0.0/16 trust",
                    "host all all 127.0.0.1/32 trust",
                    f"host replication all {SUBNET}.0.0/16 trust",
                    "host replication all 127.0.0.1/32 trust",
                ],
                **REBUILD,
            },
        }

    def _write_config(self, member: Member) -> None:
        member.directory.mkdir(parents=True, exist_ok=True)
        (member.directory / "patroni.yml").write_text(json.dumps(self.patroni_config(member), indent=1))
        _chown(member.directory)

    def start_member(self, name: str) -> None:
        """Start the member's Patroni (as the postgres OS user, in its namespace): it starts PostgreSQL itself."""
        assert self.network is not None
        member = self.members[name]
        config = str(member.directory / "patroni.yml")
        argv = self.network.exec(name, "runuser", "-u", "postgres", "--", "patroni", config)
        with member.log.open("ab") as log:
            member.proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    # what the set says ---------------------------------------------------------------------------------------

    def cluster(self) -> list[dict[str, Any]]:
        """Patroni's view (``GET /cluster`` of any member that answers): name, role, state, lag, timeline."""
        for member in self.members.values():
            with contextlib.suppress(OSError, ValueError):
                url = f"http://{member.address}:{REST_PORT}/cluster"
                with urllib.request.urlopen(url, timeout=2) as answer:
                    return list(json.load(answer)["members"])
        raise RuntimeError("no member's Patroni answers")

    def primary_name(self) -> str | None:
        """The member holding the leader key whose PostgreSQL runs, as Patroni says."""
        with contextlib.suppress(RuntimeError):
            for m in self.cluster():
                if m["role"] == "leader" and m["state"] == "running":
                    return str(m["name"])
        return None

    @property
    def primary(self) -> Member:
        name = self.primary_name()
        if name is None:
            raise RuntimeError("no primary")
        return self.members[name]

    @property
    def port(self) -> int:
        return PG_PORT

    def url(self, database: str = "postgres") -> str:
        """The primary, through HAProxy (``target_session_attrs=read-write`` still: libpq refuses a standby)."""
        return f"postgres://postgres@127.0.0.1:{self.proxy_port}/{database}?target_session_attrs=read-write"

    def multi_host_url(self, database: str = "postgres") -> str:
        """Every member (always in the same order), the one that accepts writes chosen by libpq: without HAProxy
        (docs/reliability.md measures both under a partition)."""
        hosts = ",".join(f"{m.address}:{PG_PORT}" for m in self.members.values())
        return f"postgres://postgres@{hosts}/{database}?target_session_attrs=read-write"

    def accepts_writes(self) -> bool:
        """The URL reaches a server that commits (strict synchronous: only with a synchronous standby)."""
        import psycopg

        url = libpq(self.url())
        with contextlib.suppress(Exception), psycopg.connect(url, autocommit=True, connect_timeout=2) as c:
            c.execute("SET statement_timeout = '2s'")
            c.execute("SELECT txid_current()")  # a transaction id: a commit that waits for the standby
            return True
        return False

    # faults --------------------------------------------------------------------------------------------------

    def kill_postmaster(self) -> str:
        """``kill -9`` the primary's postmaster and backends (Patroni lives: it restarts PostgreSQL in place)."""
        primary = self.primary
        pid = primary.postmaster_pid()
        if pid is None:
            raise RuntimeError(f"{primary.name} has no postmaster")
        import psutil

        with contextlib.suppress(psutil.NoSuchProcess):
            family = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
            for process in family:
                with contextlib.suppress(psutil.NoSuchProcess):
                    process.send_signal(signal.SIGKILL)
        return primary.name

    def kill_primary(self) -> str:
        """``kill -9`` every process of the primary's machine at once: Patroni, the postmaster, every backend."""
        assert self.network is not None
        name = self.primary.name
        self.network.kill_all(name)
        self.fallen.append(name)
        self.failovers += 1
        return name

    def partition_primary(self) -> str:
        """Cut the primary's links; its Patroni and PostgreSQL keep running (and Patroni demotes it)."""
        assert self.network is not None
        name = self.primary.name
        self.network.cut(name)
        self.fallen.append(name)
        self.failovers += 1
        return name

    def heal(self, name: str) -> None:
        assert self.network is not None
        self.network.heal(name)

    def restart_member(self, name: str) -> None:
        """A killed member's machine is back: its Patroni starts it again (it rejoins as a standby)."""
        member = self.members[name]
        if member.proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                member.proc.wait(5)
        self.start_member(name)

    def wait_new_primary(self, old: str, timeout: float = 120) -> tuple[str, float]:
        """Wait until a member other than ``old`` is primary and the URL commits: its name, and the last moment
        (``time.monotonic()``) at which Patroni still named no other member leader. Patroni takes the leader key
        before it promotes, so until that moment no server but ``old`` could accept a write."""
        deadline = time.monotonic() + timeout
        no_other = time.monotonic()
        while time.monotonic() < deadline:
            asked = time.monotonic()
            name = self.primary_name()
            if name in (None, old):
                no_other = asked
            elif self.accepts_writes():
                return name, no_other
            time.sleep(0.1)
        raise RuntimeError(f"no new primary within {timeout} s (see {self.directory}/*/patroni.log)")

    # backups ---------------------------------------------------------------------------------------------------

    @property
    def backups(self) -> Backups:
        return Backups(self)


class Backups:
    """pgBackRest for an :class:`HaSet`: its repository, the archive command, backups, a restore to a moment."""

    def __init__(self, ha: HaSet) -> None:
        self.ha = ha
        self.repo = ha.directory / "backrest"
        self.conf = ha.directory / "pgbackrest.conf"

    def configure(self) -> None:
        """The repository and one configuration file naming every member's data directory and socket (a backup
        is taken from whichever is the primary)."""
        self.repo.mkdir(parents=True, exist_ok=True)
        for sub in ("log", "spool", "lock"):
            (self.ha.directory / "backrest-run" / sub).mkdir(parents=True, exist_ok=True)
        run = self.ha.directory / "backrest-run"
        lines = [
            "[global]",
            f"repo1-path={self.repo}",
            "repo1-retention-full=2",
            "start-fast=y",
            "archive-async=n",
            "compress-type=lz4",
            "process-max=2",
            f"log-path={run / 'log'}",
            f"lock-path={run / 'lock'}",
            f"spool-path={run / 'spool'}",
            "log-level-console=warn",
            "log-level-file=info",
            "",
            f"[{STANZA}]",
        ]
        for i, name in enumerate("abcdefgh"[: self.ha.count], start=1):
            member = self.ha.directory / name
            lines += [f"pg{i}-path={member / 'data'}", f"pg{i}-socket-path={member}", f"pg{i}-port={PG_PORT}"]
        self.conf.write_text("\n".join(lines) + "\n")
        _chown(self.repo)
        _chown(run)
        os.chown(self.conf, *_postgres_ids())

    def archive_command(self, member: Member) -> str:
        """``archive_command`` of ``member``: pgBackRest pushes each finished WAL segment to the repository."""
        return f"pgbackrest --config={self.conf} --stanza={STANZA} --pg1-path={member.data} archive-push %p"

    def run(self, *args: str, timeout: float = 300) -> str:
        done = subprocess.run(
            ["runuser", "-u", "postgres", "--", "pgbackrest", f"--config={self.conf}", f"--stanza={STANZA}", *args],
            capture_output=True, text=True, check=False, timeout=timeout,
        )  # fmt: skip
        if done.returncode:
            raise RuntimeError(f"pgbackrest {' '.join(args)}: {done.stderr.strip() or done.stdout.strip()}")
        return done.stdout

    def create_stanza(self) -> None:
        self.run("stanza-create")

    def backup(self, kind: str = "full") -> None:
        self.run("backup", f"--type={kind}")

    def info(self) -> dict[str, Any]:
        return dict(json.loads(self.run("info", "--output=json"))[0])

    def restore(self, target: str, directory: Path) -> Restored:
        """A scratch cluster in ``directory``, restored to the moment ``target`` (a timestamp with its time zone)
        from the latest backup before it and the archived WAL after it, started on a free port of 127.0.0.1 and
        promoted at ``target``. Returns it with the seconds the restore took and those until it was promoted."""
        from devtools.pgcluster import Cluster

        started = time.monotonic()
        cluster = Cluster(directory, "restored")
        self.run(
            "restore", f"--pg1-path={cluster.data}", "--type=time", f"--target={target}", "--target-action=promote",
            "--target-timeline=latest",
        )  # fmt: skip
        restored_s = time.monotonic() - started
        # the copy carries a member's settings (Patroni's): its addresses, its synchronous standbys, its archive,
        # and its own files' paths; a scratch cluster has its own and archives nothing
        cluster.configure(
            cluster.own_settings()
            + f"hba_file = '{cluster.data / 'pg_hba.conf'}'\nident_file = '{cluster.data / 'pg_ident.conf'}'\n"
            # (Patroni passed max_connections on the command line: recovery needs at least the primary's)
            + "synchronous_standby_names = ''\narchive_mode = off\nhot_standby = off\nmax_connections = 200\n"
        )
        cluster.run("pg_ctl", "-D", str(cluster.data), "-l", str(cluster.log), "-W", "start")  # (ready once promoted)
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            with contextlib.suppress(Exception):
                if not cluster.in_recovery():
                    break
            time.sleep(0.2)
        else:
            raise RuntimeError(f"the restored cluster never left recovery (see {cluster.log})")
        return Restored(cluster, restored_s, time.monotonic() - started)


@dataclass
class Restored:
    """A scratch cluster restored to a moment: the cluster, the seconds pgBackRest took to lay the files down,
    and the seconds from the restore's start until the cluster, promoted at the moment, accepted writes."""

    cluster: Any  # devtools.pgcluster.Cluster
    restore_s: float
    ready_s: float


def _postgres_ids() -> tuple[int, int]:
    import pwd

    entry = pwd.getpwnam("postgres")
    return entry.pw_uid, entry.pw_gid


@contextlib.contextmanager
def ha_set(directory: Path, members: int = 3, archive: bool = True) -> Iterator[HaSet]:
    """An :class:`HaSet`, up for the block and always taken down (namespaces included)."""
    ha = HaSet(directory, members, archive)
    try:
        ha.init()
        yield ha
    finally:
        ha.shutdown()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("command", choices=["up", "compose"], help="up: the set here; compose: write docker/'s files")
    parser.add_argument("--dir", default="", help="the set's directory (default: a new temporary one)")
    parser.add_argument("--members", type=int, default=3)
    args = parser.parse_args(argv)
    if args.command == "compose":
        root = Path(__file__).resolve().parent.parent
        for name, text in compose_files().items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)
            print(f"wrote {name}")
        return 0
    import tempfile

    directory = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="casino-ha-"))
    stop = False

    def interrupt(*_: object) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, interrupt)
    try:
        with ha_set(directory, args.members) as ha:
            print(f"HA set up in {directory}: primary {ha.primary.name}")
            print(f"DATABASE_URL={ha.url('postgres')}")
            print("Ctrl-C takes it down (processes, namespaces, bridge).", flush=True)
            with contextlib.suppress(KeyboardInterrupt):
                while not stop:
                    time.sleep(1)
    finally:
        if not args.dir:  # (a directory of its own: its data goes with it)
            shutil.rmtree(directory, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
