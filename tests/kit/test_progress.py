"""Long commands show progress on stderr (a bar on a terminal, plain lines elsewhere) and print one JSON
document on stdout with --json (kit/progress.py)."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from kit.progress import progress, resolve_style
from tests.conftest import ROOT, child_database_url, owner_cursor
from tests.support.play import make_players, make_table, play_hands


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_auto_is_a_bar_on_a_terminal_and_lines_elsewhere():
    assert resolve_style("auto", FakeTerminal()) == "bar"
    assert resolve_style("auto", io.StringIO()) == "lines"
    assert resolve_style("off", FakeTerminal()) == "off"
    with pytest.raises(ValueError):
        resolve_style("loud", io.StringIO())


def test_lines_are_written_every_interval_and_at_the_end():
    out = io.StringIO()
    with progress("job", total=4, unit="things", style="lines", stream=out, interval=0) as bar:
        for _ in range(4):
            bar.advance()
        bar.note("thing 3 is odd")
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("job: 1/4 things (25%)")
    assert "job: thing 3 is odd" in lines
    assert lines[-1].startswith("job: 4/4 things (100%)") and lines[-1].endswith("(done)")


def test_a_quiet_interval_writes_only_the_final_line_and_off_writes_nothing():
    out = io.StringIO()
    with progress("job", total=1000, style="lines", stream=out, interval=3600) as bar:
        for _ in range(1000):
            bar.advance()
    assert len(out.getvalue().splitlines()) == 1
    silent = io.StringIO()
    with progress("job", total=3, style="off", stream=silent) as bar:
        bar.advance(3)
        bar.note("nobody hears this")
    assert silent.getvalue() == ""


def test_a_bar_on_a_terminal_shows_the_label_and_the_count():
    out = FakeTerminal()
    with progress("verify_hands", total=3, unit="hands", style="bar", stream=out) as bar:
        bar.advance(3)
        bar.note("hand 7 fails: replay")
    text = out.getvalue()
    assert "verify_hands" in text and "3/3" in text and "hand 7 fails: replay" in text


@pytest.mark.django_db(transaction=True)
def test_the_long_commands_print_one_json_document_and_progress_lines_on_stderr():
    rng = random.Random(7)
    table = make_table("classic")
    play_hands(table, make_players(3, prefix="pj"), 3, rng)

    for name, args in (("verify_hands", ["--all"]), ("rebuild_projections", []), ("reconcile", [])):
        out, err = io.StringIO(), io.StringIO()
        call_command(name, *args, "--json", stdout=out, stderr=err)
        result = json.loads(out.getvalue())  # exactly one document, nothing else on stdout
        assert result["ok"] is True, (name, result)
        assert err.getvalue() == ""  # call_command's stderr is not where progress goes (sys.stderr is)

    out = io.StringIO()
    call_command("verify_hands", "--all", "--json", stdout=out)
    result = json.loads(out.getvalue())
    assert result["hands_checked"] == result["hands_verified"] >= 3 and result["chains_checked"] == 1

    out = io.StringIO()
    call_command("reconcile", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert [c["ok"] for c in report["checks"]] == [True] * 8 and report["counts"]["postings"] > 0

    # a failure: still one document, with the failing check, and the exit code says so
    with owner_cursor(triggers_off=["ledger_balance"]) as cursor:  # as the owner could, behind the trigger
        cursor.execute(
            "UPDATE ledger_balance SET balance = balance + 5 WHERE account_id = (SELECT min(id) FROM ledger_account)"
        )
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("reconcile", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["ok"] is False and report["total_differences"] >= 1


@pytest.mark.django_db(transaction=True)
def test_progress_lines_go_to_stderr_of_a_real_process(child_env):
    """Run as a script would: stdout is JSON only, stderr has the plain progress lines (not a terminal)."""
    env = {**child_env, "DATABASE_URL": child_database_url(), "DJANGO_SETTINGS_MODULE": "casino.settings_test"}
    done = subprocess.run(
        [sys.executable, "manage.py", "reconcile", "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["ok"] is True
    assert "reconcile: trial balance" in done.stderr and "(done)" in done.stderr
