"""The real headless browser of the browser tests: Playwright for Python driving Debian's ``/usr/bin/chromium``
(``playwright install`` cannot download here). If it is missing, :func:`browser` tries ``apt-get install -y
chromium`` once (as root, bounded in time) and otherwise skips, saying why. Both fixtures are everyone's
(tests/conftest.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
APT_TIMEOUT_S = 600


def _chromium_missing() -> str | None:
    """None when chromium is there (installing it once if we can), else why the browser tests cannot run."""
    if CHROMIUM.exists():
        return None
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        return f"{CHROMIUM} is missing and cannot be installed here (needs root and apt-get): apt-get install chromium"
    try:
        subprocess.run(
            ["apt-get", "install", "-y", "chromium"], capture_output=True, timeout=APT_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{CHROMIUM} is missing and `apt-get install -y chromium` failed: {exc}"
    return None if CHROMIUM.exists() else f"{CHROMIUM} is missing and `apt-get install -y chromium` did not provide it"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    missing = _chromium_missing()
    if missing:
        pytest.skip(missing)
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright (Python) is not installed")
    # Playwright's sync API keeps an event loop in this thread; Django's ORM (used by the test itself) refuses to
    # run where a loop is running unless told it is safe, which it is here: the test never awaits.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_api.sync_playwright() as playwright:
            launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
            yield launched
            launched.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(15_000)
    tab = context.new_page()
    yield tab
    context.close()


def wait_until(page: Any, expression: str, timeout: float = 10_000) -> None:
    """Wait until the JavaScript ``expression`` is truthy in ``page`` (``timeout`` in ms, as Playwright's).

    Playwright's own ``wait_for_function`` compiles the expression inside the page, which the player pages' strict
    Content-Security-Policy refuses (no ``eval``); ``evaluate`` goes through the browser's debugging protocol."""
    import time

    deadline = time.monotonic() + timeout / 1000
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"never true within {timeout} ms: {expression}")
        time.sleep(0.05)
