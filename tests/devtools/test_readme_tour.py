"""The README's tour works word for word (issue 32): a real `make run` (devtools.devenv run, as the Makefile runs it)
on a fresh database, then the README's "Try it" block run by bash as written, with only the ports changed to this
test's free ones (the `make run` of tests/devtools/test_run_command.py, which calls :func:`run_readme_tour`).
Every curl must answer without an HTTP error (``--fail-with-body``), the hand it plays must verify, and its last
line, `make manage ARGS="verify_hands --all"`, must reach that same `make run`."""

from __future__ import annotations

import json
import os
import re
import subprocess

from tests.conftest import ROOT


def readme_tour() -> str:
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("### Try it") :]
    return re.search(r"```sh\n(.*?)```", section, re.S).group(1)


def test_the_tour_is_the_one_block_of_the_try_it_section_and_ends_with_make_manage():
    tour = readme_tour()
    assert tour.startswith("API=http://127.0.0.1:8000/api/v1")
    assert "hands/$HAND/verify" in tour and tour.strip().splitlines()[-1].startswith('make manage ARGS="verify_hands')


def run_readme_tour(port: int, live_port: int) -> None:
    """The tour, run by bash against the `make run` serving on ``port`` and ``live_port`` (the one started by
    tests/devtools/test_run_command.py: one `make run` for both)."""
    tour = readme_tour()
    tour = tour.replace("127.0.0.1:8000", f"127.0.0.1:{port}")
    tour = tour.replace("127.0.0.1:8001", f"127.0.0.1:{live_port}")
    script = 'set -euo pipefail\ncurl() { command curl --fail-with-body "$@"; echo; }\n' + tour
    # a newcomer's shell: none of the casino's variables (make manage must find the running make run by itself)
    shell_env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DATABASE", "MIGRATE_", "REDIS", "SECRET", "SEED_", "CHECKPOINT_", "DJANGO"))
    }
    shell_env["PORT"] = str(port)  # which of the make runs of this checkout (tests run several)
    done = subprocess.run(["bash", "-c", script], cwd=ROOT, env=shell_env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"the tour failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    answers = [line for line in done.stdout.splitlines() if line.startswith("{")]
    verification = next(json.loads(a) for a in reversed(answers) if '"commitment"' in a)
    assert all(verification[check] == "ok" for check in ("commitment", "shuffle", "replay", "ledger")), verification
    assert any('"status":"settled"' in a.replace(" ", "") for a in answers), "the tour's hand did not settle"
    assert re.search(r"\d+ hands checked, \d+ verify, 0 fail", done.stdout + done.stderr), done.stderr[-2000:]
