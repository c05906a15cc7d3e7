"""Issue #43: ``make run``'s embedded PostgreSQL asks for passwords like the real one. A fresh embedded server (its
own directory) refuses a connection without the superuser's generated password, and one with a wrong one; the URL
the launcher hands on carries it and works, also after a restart (the rules were rewritten once)."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import psycopg
import pytest

from devtools import localfiles, servers


def test_the_embedded_server_refuses_a_connection_without_its_password(tmp_path: Path, monkeypatch: Any) -> None:
    local = tmp_path / "l"
    monkeypatch.setattr(servers, "LOCAL", local)
    monkeypatch.setattr(localfiles, "LOCAL", local)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(local / "run"))
    for _start in range(2):
        with servers.embedded_postgres() as url:
            socket_dir = unquote(urlsplit(url).netloc.rsplit("@", 1)[1])
            assert servers.database_answers(url)
            for password in (None, "wrong"):
                with pytest.raises(psycopg.OperationalError, match="password"):
                    psycopg.connect(host=socket_dir, user="postgres", password=password, dbname="casino").close()
    assert (local / "pg_superuser_password").read_text().strip() in url
    assert "trust" not in "".join(
        line for line in (local / "pgdata" / "pg_hba.conf").read_text().splitlines() if not line.startswith("#")
    )
