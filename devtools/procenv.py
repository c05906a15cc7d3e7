"""Each process of ``make run`` gets the credentials it uses and no other (issue #26, docs/security.md).

``make run`` (devtools/devenv.py) starts honcho with no secret in its environment: it writes each process's own
variables to a file readable by this user only (``PROCESS_SECRETS_FILE``, deleted when the run ends) and runs
every Procfile line as ``python -m devtools.procenv <name> -- <command>``, which adds that process's variables,
drops the file's name, and executes the command in its place (same process id). So ``/proc/<pid>/environ`` of the
web server holds the application's database URL and the sealing key file, and not the owner's URL (only
``migrate`` ever gets it), and beat holds no fairness key.

Who gets what is :func:`variables_for`. Imports no Django code (it runs before each server starts).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping

SECRETS_FILE_VARIABLE = "PROCESS_SECRETS_FILE"
#: every process that runs Django: its database (the application role) and the settings' secret key
DJANGO = ("DATABASE_URL", "SECRET_KEY")
SEALING = ("SEED_SEALING_KEYS", "SEED_SEALING_KEY_FILE")
SIGNING = ("CHECKPOINT_SIGNING_KEYS", "CHECKPOINT_SIGNING_KEY_FILE")
#: the Procfile's processes that deal no card: beat (schedules) and the lab's worker (simulations)
NOT_DEALING = frozenset({"beat", "lab"})
#: the checkpoint signer's process (Procfile ``signer``): its own database role, the signing key, and the sealing
#: key to open the face-down cards of the hands it replays (tables/fairness.py); it deals nothing
SIGNER = "signer"
#: the processes that serve the cashier's requests (web: its API and admin; manage and the demo's seeding: its
#: deposits) and so get the cashier role's URL (ledger/cashier_role.py); no worker, live server or beat has it
CASHIERS = frozenset({"web", "manage", "seed_demo"})
#: every variable a process of the run may get through this file (the rest of the environment holds none)
SECRET_VARIABLES = frozenset(
    {*DJANGO, *SEALING, *SIGNING, "MIGRATE_DATABASE_URL", "SIGNER_DATABASE_URL", "CASHIER_DATABASE_URL",
     "DEMO_PASSWORD", "DATABASE_SUPERUSER_URL", "TESTS_DATABASE_URL"}
)  # fmt: skip


def variables_for(name: str, secrets: Mapping[str, str], *, signer: bool = True) -> dict[str, str]:
    """The secret variables process ``name`` of the Procfile gets. ``signer``: the signer process signs (then
    no other process holds a signing key); else the processes that deal sign as they end a hand (and get the
    signer role's URL to write the checkpoints with). A process
    added to the Procfile later deals, by default, like web and worker."""
    if name == SIGNER:
        found = {"DATABASE_URL": secrets.get("SIGNER_DATABASE_URL", ""), "SECRET_KEY": secrets.get("SECRET_KEY", "")}
        found.update({key: secrets.get(key, "") for key in (*SIGNING, *SEALING)})  # it opens what it replays
        return {key: value for key, value in found.items() if value}
    # inline signing: the dealing processes sign, and write the checkpoints as the signer's role (tables/signer.py)
    inline = () if signer else (*SIGNING, "SIGNER_DATABASE_URL")
    wanted = DJANGO if name in NOT_DEALING else (*DJANGO, *SEALING, *inline)
    if name in CASHIERS:
        wanted = (*wanted, "CASHIER_DATABASE_URL")
    return {key: secrets[key] for key in wanted if secrets.get(key)}


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] != "--":
        print("usage: python -m devtools.procenv <process name> -- <command> [args...]", file=sys.stderr)
        return 2
    name, command = argv[0], argv[2:]
    env = dict(os.environ)
    path = env.pop(SECRETS_FILE_VARIABLE, "")
    if path:
        with open(path, encoding="utf-8") as handle:
            env.update(variables_for(name, json.load(handle), signer=env.get("CHECKPOINT_SIGNER") == "signer"))
    os.execvpe(command[0], command, env)
    return 127  # not reached


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
