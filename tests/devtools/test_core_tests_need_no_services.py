"""``pytest tests/rules tests/gamemath`` runs with no database and no Redis (issue #29): the core and the game's
maths are pure, and so are their tests. Run here in a process without DATABASE_URL / REDIS_URL."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import ROOT


def test_the_core_and_maths_tests_run_without_a_database_url_or_a_redis_url() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_", "REDIS_", "MIGRATE_", "PYTEST_"))}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "tests/gamemath", "tests/rules/test_rules_purity.py", "tests/rules/test_rules_scenarios.py"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert " passed" in done.stdout and "error" not in done.stdout.splitlines()[-1]
