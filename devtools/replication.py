"""A replication pair of PostgreSQL clusters of our own (devtools/pgcluster.py), a primary with a SYNCHRONOUS
standby, and the failover drill on it (docs/reliability.md, "Failover").

The pair: the standby is a ``pg_basebackup`` of the primary streaming from it, and the primary waits for it to
flush every commit (``synchronous_standby_names``, ``synchronous_commit = on``): a commit a client saw acknowledged
is on both servers. Roles (the owner, application and signer roles of backoffice/dbroles.py) are part of the cluster's
catalog and replicate with everything else. The programs name both servers in one URL,
``postgres://...@127.0.0.1:<a>,127.0.0.1:<b>/db?target_session_attrs=read-write`` (kit/dburl.py), and libpq
connects to whichever accepts writes.

The drill (:meth:`ReplicationPair.failover`): ``kill -9`` every process of the primary (a dead machine: no
shutdown, in-flight commits cut), fence the old primary, and promote the standby. Fencing: the old primary's data
directory gets a ``standby.signal`` and the new primary as its upstream, so whatever starts it again (a
supervisor, an operator) starts a read-only standby, never a second primary. It may not be able to follow (its
last WAL may never have reached the standby: a commit nobody was told about); it then waits, read-only, to be
rebuilt (``pg_basebackup`` or ``pg_rewind``) as the pair's new standby.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass
from pathlib import Path

from devtools.pgcluster import Cluster
from kit.dburl import with_hosts

# A primary of a pair: streams its WAL, and a commit returns once the standby has flushed it
PRIMARY_CONF = (
    "wal_level = replica\nmax_wal_senders = 5\nwal_keep_size = 256MB\nwal_log_hints = on\nhot_standby = on\n"
    "full_page_writes = on\n"  # (pg_rewind needs it and wal_log_hints)
    "synchronous_commit = on\nwal_sender_timeout = 5s\n"
)


@dataclass
class FailoverTimes:
    """What a failover took, in seconds: from the kill to the promotion's start (detection: the caller's wait),
    then fencing the old primary and promoting the standby."""

    detect_s: float
    promote_s: float


class ReplicationPair:
    """A primary and its synchronous standby, named together by one multi-host URL; see the module's text.

    It stands in for one server where the soak expects one (``url``, ``start``, ``stop``: the current primary)."""

    restartable = True

    def __init__(self, directory: Path) -> None:
        self.clusters = [Cluster(directory / "a", "a"), Cluster(directory / "b", "b")]
        self.primary, self.standby = self.clusters
        self.bindir = self.primary.bindir
        self.failovers = 0

    @property
    def port(self) -> int:
        return self.primary.port

    def url(self, database: str = "postgres") -> str:
        """Both servers (always in the same order), the one that accepts writes chosen by libpq."""
        hosts = [("127.0.0.1", str(c.port)) for c in self.clusters]
        return with_hosts(self.clusters[0].url(database), hosts) + "?target_session_attrs=read-write"

    def init(self) -> None:
        self.primary.init(PRIMARY_CONF + f"synchronous_standby_names = '{self.standby.name}'\n")
        self.standby.directory.mkdir(parents=True, exist_ok=True)
        self.standby.run(
            "pg_basebackup", "-h", "127.0.0.1", "-p", str(self.primary.port), "-U", "postgres",
            "-D", str(self.standby.data), "-X", "stream", "--no-sync", "-c", "fast",
        )  # fmt: skip
        # the copy carries the primary's settings: its own address, and no synchronous standby of its own (once
        # promoted it would wait forever for one)
        self.standby.configure(self.standby.own_settings())
        self.standby.follow(self.primary)
        self.standby.start()
        if not self.wait_synchronous(60):
            raise RuntimeError(f"the standby never became synchronous (see {self.standby.log})")

    def replication(self) -> list[tuple[str, str, str]]:
        """The primary's standbys: (application_name, state, sync_state)."""
        rows = self.primary.query("SELECT application_name, state, sync_state FROM pg_stat_replication")
        return [(str(a), str(b), str(c)) for a, b, c in rows]

    def wait_synchronous(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(Exception):
                if (self.standby.name, "streaming", "sync") in self.replication():
                    return True
            time.sleep(0.1)
        return False

    # the current primary, for whoever restarts "the" server
    def start(self) -> None:
        self.primary.start()

    def stop(self, mode: str = "fast") -> None:
        self.primary.stop(mode)

    def shutdown(self) -> None:
        for cluster in self.clusters:
            cluster.stop("immediate")

    def kill_primary(self) -> None:
        """``kill -9`` every process of the primary (the first half of a failover)."""
        self.primary.kill()

    def promote(self) -> float:
        """Fence the old primary, then promote the standby (the second half); returns the promotion's seconds.

        Fencing first: were the old primary started again between the two, it must already come back read-only."""
        old, new = self.primary, self.standby
        old.follow(new)  # fenced: started again, it is a read-only standby of the new primary
        started = time.monotonic()
        new.run("pg_ctl", "-D", str(new.data), "-w", "-t", "60", "promote")
        took = time.monotonic() - started
        self.primary, self.standby = new, old
        self.failovers += 1
        return took

    def rejoin(self) -> None:
        """Rebuild the fenced old primary as the new primary's synchronous standby (``pg_rewind``: only what
        diverged is copied back): the pair is whole again, ready for the next failover."""
        old, new = self.standby, self.primary
        old.stop("fast")  # (a supervisor may have started it, fenced)
        (old.data / "standby.signal").unlink(missing_ok=True)  # pg_rewind first finishes its crash recovery
        old.run(
            "pg_rewind", "-D", str(old.data), "--no-sync",
            "--source-server", f"host=127.0.0.1 port={new.port} user=postgres dbname=postgres",
        )  # fmt: skip
        old.configure(old.own_settings())  # (the new primary's configuration files came with the rewind)
        old.follow(new)
        old.start()
        new.query(f"ALTER SYSTEM SET synchronous_standby_names = '{old.name}'")
        new.query("SELECT pg_reload_conf()")
        if not self.wait_synchronous(60):
            raise RuntimeError(f"the rebuilt standby never became synchronous (see {old.log})")

    def failover(self, detect_s: float = 0.0) -> FailoverTimes:
        """``kill -9`` the primary, wait ``detect_s`` (a failover manager noticing), fence the old primary and
        promote the standby. Afterwards the pair is one primary (no standby: commits no longer wait for one) and a
        fenced data directory."""
        self.kill_primary()
        time.sleep(detect_s)
        return FailoverTimes(detect_s, self.promote())
