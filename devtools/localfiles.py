"""What the launcher (devtools/devenv.py) keeps under ``.local/`` (git-ignored), readable by this user only:

- the checkout's development secrets (the settings' secret key, the demo password, the database roles'
  passwords are derived from one), made on first need and kept across runs;
- while a ``make run`` runs, removed when it stops: its secrets file and its Procfile, whose every line starts
  through ``devtools.procenv`` (each process takes its own variables from the file: devtools/procenv.py), and its
  record (``.local/instances/<port>.json``), the variables it gave its programs, by which ``make manage`` runs a
  command against it.

(The development fairness keys, also under ``.local/``, are devtools/devkeys.py's.)

This module runs before Django is configured and imports no Django code.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets as random_secrets
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCAL = ROOT / ".local"
RUN_RECORDS = LOCAL / "instances"


def local_secret(name: str = "secret_key", *, nbytes: int = 50) -> str:
    """A per-checkout development secret kept in .local (never committed)."""
    LOCAL.mkdir(exist_ok=True)
    path = LOCAL / name
    if not path.exists():  # written aside then linked: two commands starting together agree on one secret
        draft = path.with_name(f".{name}.{os.getpid()}")
        draft.write_text(random_secrets.token_urlsafe(nbytes))
        draft.chmod(0o600)
        with contextlib.suppress(FileExistsError):
            os.link(draft, path)
        draft.unlink()
    return path.read_text().strip()


@contextlib.contextmanager
def process_secrets(secrets: dict[str, str]) -> Iterator[tuple[Path, Path]]:
    """This run's secrets file (this user only) and a Procfile whose every line starts through
    ``devtools.procenv``, which gives each process its own variables; both deleted when the run ends."""
    directory = LOCAL / "run"
    directory.mkdir(parents=True, exist_ok=True)
    secrets_file, procfile = directory / f"secrets.{os.getpid()}.json", directory / f"Procfile.{os.getpid()}"
    fd = os.open(secrets_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        json.dump(secrets, out)
    lines = []
    for line in (ROOT / "Procfile").read_text().splitlines():
        name, colon, command = line.partition(":")
        if colon and name.strip() and not name.lstrip().startswith("#"):
            lines.append(f"{name.strip()}: python -m devtools.procenv {name.strip()} -- {command.strip()}")
    procfile.write_text("\n".join(lines) + "\n")
    try:
        yield procfile, secrets_file
    finally:
        secrets_file.unlink(missing_ok=True)
        procfile.unlink(missing_ok=True)


def record_run(port: str, env: dict[str, str]) -> Path:
    """What `make manage` needs to reach this `make run`: the variables run gave its programs (the services'
    URLs, the secret key, the key files), in ``.local/instances/<port>.json`` (readable by this user only); the
    caller removes it when run stops."""
    RUN_RECORDS.mkdir(parents=True, exist_ok=True)
    path = RUN_RECORDS / f"{port}.json"
    shell = {"PATH", "PWD", "OLDPWD", "SHLVL", "_", "MAKEFLAGS", "MAKELEVEL", "MFLAGS", "TERM"}
    added = {k: v for k, v in env.items() if k not in shell}  # also what run took from its own environment
    draft = path.with_suffix(f".{os.getpid()}")
    draft.touch(mode=0o600)
    draft.write_text(json.dumps({"pid": os.getpid(), "port": port, "env": added}))
    draft.replace(path)
    return path


def running_instances() -> list[dict[str, object]]:
    """The `make run`s of this checkout that are running now (their records; stale ones are removed)."""
    found = []
    for path in sorted(RUN_RECORDS.glob("*.json")) if RUN_RECORDS.is_dir() else []:
        try:
            record = json.loads(path.read_text())
            os.kill(int(record["pid"]), 0)
        except (OSError, ValueError, KeyError):
            path.unlink(missing_ok=True)  # its run was killed without cleaning up
            continue
        found.append(record)
    return found
