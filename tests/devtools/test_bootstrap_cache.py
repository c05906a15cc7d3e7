"""scripts/bootstrap.sh in a fresh checkout takes the pinned set from the machine's cache of finished installations
instead of running pip: hard links, the installing checkout's path rewritten in new files, the cache untouched."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tests.conftest import ROOT


def test_a_fresh_checkout_takes_the_pinned_set_from_the_cache_and_names_its_own_path(tmp_path: Path) -> None:
    venv = ROOT / ".venv"
    key = subprocess.run(
        ["bash", "scripts/bootstrap.sh", "--cache-key"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    entry = tmp_path / "cache" / key
    entry.mkdir(parents=True)
    subprocess.run(["cp", "-al", str(venv), str(entry / "venv")], check=True)  # as bootstrap saves one
    (entry / "origin").write_text(f"{ROOT}\n")
    clone = tmp_path / "clone"
    (clone / "scripts").mkdir(parents=True)
    for name in ("pyproject.toml", "constraints.txt", "scripts/bootstrap.sh"):
        shutil.copy(ROOT / name, clone / name)
    for package in ("casino", "tables", "ledger", "lab", "responsible"):
        (clone / package).symlink_to(ROOT / package)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}

    done = subprocess.run(
        ["bash", "scripts/bootstrap.sh"], cwd=clone, env={**env, "CASINO_VENV_CACHE": str(tmp_path / "cache")},
        capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip

    assert "from this machine's cache" in done.stderr and "installing" not in done.stderr, done.stderr
    assert done.stdout.strip().splitlines()[-1] == f"{clone}/.venv/bin/python"
    assert (clone / ".venv/bin/pytest").read_text().startswith(f"#!{clone}/.venv/bin/python")
    assert (entry / "venv/bin/pytest").read_text() == (venv / "bin/pytest").read_text()  # the cache as it was
    imported = subprocess.run(
        [str(clone / ".venv/bin/python"), "-c", "import casino, django; print(casino.__file__, django.__file__)"],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    assert imported[0] == f"{clone}/casino/__init__.py"
    django_file = Path(imported[1])
    assert django_file.is_relative_to(clone / ".venv")
    mirror = venv / django_file.relative_to(clone / ".venv")
    assert django_file.stat().st_ino == mirror.stat().st_ino  # hard-linked, not copied
