"""The README's tour works word for word (issue 32): a real `make run` (devtools.devenv run, as the Makefile runs it)
on a fresh database, then the README's "Try it" block run by bash as written, with only the ports changed to this
test's free ones. Every curl must answer without an HTTP error (``--fail-with-body``), the hand it plays must
verify, and its last line, `make manage ARGS="verify_hands --all"`, must reach that same `make run`."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from urllib.parse import urlsplit

import pytest

from tests.conftest import ROOT, free_port, wait_for
from tests.devtools.test_run_command import _drop_database, _status


def readme_tour() -> str:
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("### Try it") :]
    return re.search(r"```sh\n(.*?)```", section, re.S).group(1)


def test_the_tour_is_the_one_block_of_the_try_it_section_and_ends_with_make_manage():
    tour = readme_tour()
    assert tour.startswith("API=http://127.0.0.1:8000/api/v1")
    assert "hands/$HAND/verify" in tour and tour.strip().splitlines()[-1].startswith('make manage ARGS="verify_hands')


@pytest.fixture
def make_run():
    """A `make run` on a database of its own (dropped first: a newcomer's machine), on free ports."""
    superuser = os.environ.get("DATABASE_SUPERUSER_URL")
    if not superuser:
        pytest.skip("`make run` creates its database and roles: needs DATABASE_SUPERUSER_URL (set by `make test`)")
    port, live_port = free_port(), free_port()
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    name = f"{urlsplit(os.environ['DATABASE_URL']).path.lstrip('/')}_tour{worker}"
    db = urlsplit(superuser)._replace(path=f"/{name}").geturl()
    _drop_database(superuser, name)
    env = {**os.environ, "DATABASE_URL": db, "PORT": str(port), "LIVE_PORT": str(live_port), "PYTHONPATH": str(ROOT)}
    for variable in ("DJANGO_SETTINGS_MODULE", "MIGRATE_DATABASE_URL", "DATABASE_SUPERUSER_URL"):
        env.pop(variable, None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "devtools.devenv", "run"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        assert wait_for(lambda: _status(f"{base}/readyz") == 200, timeout=180, interval=0.5), "make run never got ready"
        yield {"port": port, "live_port": live_port, "env": env}
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        _drop_database(superuser, name)


def test_the_readme_tour_runs_word_for_word_against_make_run(make_run):
    tour = readme_tour()
    tour = tour.replace("127.0.0.1:8000", f"127.0.0.1:{make_run['port']}")
    tour = tour.replace("127.0.0.1:8001", f"127.0.0.1:{make_run['live_port']}")
    script = 'set -euo pipefail\ncurl() { command curl --fail-with-body "$@"; echo; }\n' + tour
    # a newcomer's shell: none of the casino's variables (make manage must find the running make run by itself)
    shell_env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DATABASE", "MIGRATE_", "REDIS", "SECRET", "SEED_", "CHECKPOINT_", "DJANGO"))
    }
    shell_env["PORT"] = str(make_run["port"])  # which of the make runs of this checkout (tests run several)
    done = subprocess.run(["bash", "-c", script], cwd=ROOT, env=shell_env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"the tour failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    answers = [line for line in done.stdout.splitlines() if line.startswith("{")]
    verification = next(json.loads(a) for a in reversed(answers) if '"commitment"' in a)
    assert all(verification[check] == "ok" for check in ("commitment", "shuffle", "replay", "ledger")), verification
    assert any('"status":"settled"' in a.replace(" ", "") for a in answers), "the tour's hand did not settle"
    assert re.search(r"\d+ hands checked, \d+ verify, 0 fail", done.stdout + done.stderr), done.stderr[-2000:]
