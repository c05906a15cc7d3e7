"""DATABASE_URL, including libpq's multi-host form, as Django's DATABASES entry (docs/reliability.md, "Failover").

A replication pair is named by one URL listing both servers, the way libpq reads it::

    postgres://casino_app:secret@db-a:5432,db-b:5432/casino?target_session_attrs=read-write

libpq tries the hosts in turn and, with ``target_session_attrs=read-write``, keeps the first one that accepts
writes: after a failover, the promoted standby. dj-database-url reads only one host (it takes
``db-a:5432,db-b`` for the host name), so the host list is taken apart here: ``HOST`` and ``PORT`` become libpq's
comma-separated lists, which Django hands to psycopg unchanged, and the query's options (``target_session_attrs``,
``connect_timeout``) go to ``OPTIONS`` as dj-database-url puts them.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, unquote, urlsplit

import dj_database_url

DEFAULT_PORT = "5432"


def hosts_of(url: str) -> list[tuple[str, str]]:
    """The (host, port) pairs of ``url``'s host list, in order (the port as written, else 5432), each host decoded:
    a Unix socket directory is written percent-encoded in a URL (``%2Frun%2Fpostgresql``) and libpq wants the
    directory itself."""
    netloc = urlsplit(url).netloc.rsplit("@", 1)[-1]
    pairs = []
    for item in netloc.split(","):
        if item.startswith("["):  # [IPv6]:port
            host, _, rest = item[1:].partition("]")
            port = rest.lstrip(":")
        else:
            host, _, port = item.partition(":")
        pairs.append((unquote(host), port or DEFAULT_PORT))
    return pairs


def with_hosts(url: str, hosts: list[tuple[str, str]]) -> str:
    """``url`` naming ``hosts`` instead of its own (its credentials, database and query kept)."""
    parts = urlsplit(url)
    userinfo, at, _ = parts.netloc.rpartition("@")
    listed = ",".join(_host_port(h, p) for h, p in hosts)
    return parts._replace(netloc=f"{userinfo}{at}{listed}").geturl()


def _host_port(host: str, port: str) -> str:
    if host.startswith("/"):  # a socket directory: encoded, as it must be inside a URL
        return f"{quote(host, safe='')}:{port}"
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def parse(url: str, **kwargs: Any) -> dict[str, Any]:
    """``dj_database_url.parse(url, **kwargs)``, also for a URL naming several hosts."""
    hosts = hosts_of(url)
    if len(hosts) == 1:
        return dict(dj_database_url.parse(url, **kwargs))
    config = dict(dj_database_url.parse(with_hosts(url, hosts[:1]), **kwargs))
    config["HOST"] = ",".join(host for host, _ in hosts)
    config["PORT"] = ",".join(port for _, port in hosts)
    return config
