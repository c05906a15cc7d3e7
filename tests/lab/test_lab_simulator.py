"""The simulator's contract: reproducible from a seed whatever the number of processes, counts that add up,
every preset and bank playable, and the command lines (``python -m lab``, ``manage.py simulate``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lab.runner import chunks, run
from lab.sim import Spec, chunk_seed, hand_seed
from lab.stats import Tally
from lab.strategies import punter_strategy

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "spec",
    [
        Spec(preset="spanish", bank="player", hands=1_200, chunk=300, seed=11),
        Spec(preset="hungarian", bank="house", hands=1_500, chunk=400, seed=12, punters=3),
        Spec(preset="italian", bank="player", hands=900, chunk=250, seed=13, overrides={"bank_rotation": "every_hand"}),
    ],
    ids=["spanish-player", "hungarian-house", "italian-player-rotation"],
)
def test_the_same_seed_gives_the_same_result_on_one_and_on_several_processes(spec):
    one = run(spec, processes=1)
    several = run(spec, processes=3)
    assert one.processes == 1 and several.processes == 3
    assert one.tally.to_json() == several.tally.to_json()
    assert one.to_json()["edge"] == several.to_json()["edge"]
    other_seed = run(Spec(**{**spec.__dict__, "seed": spec.seed + 1}), processes=2)
    assert other_seed.tally.to_json() != one.tally.to_json()


def test_the_work_is_cut_into_seeded_chunks_that_do_not_depend_on_the_processes():
    spec = Spec(hands=25_001, chunk=10_000)
    assert [(i, n) for _, i, n in chunks(spec)] == [(0, 10_000), (1, 10_000), (2, 5_001)]
    assert chunk_seed(1, 0) != chunk_seed(1, 1) != chunk_seed(2, 0)
    assert hand_seed(chunk_seed(1, 0), 5) == hand_seed(chunk_seed(1, 0), 5)
    assert len(hand_seed(chunk_seed(1, 0), 5)) == 64


def _consistent(t: Tally, spec: Spec) -> None:
    c = t.counts
    assert t.rounds == spec.hands
    assert c["bust"] + c["points"] + c["seven_half"] + c["reale"] + c["pair7"] == t.punter_hands
    assert c["win"] + c["lose"] + c["push"] == t.punter_hands
    banker = sum(
        c[k]
        for k in ("banker_bust", "banker_points", "banker_seven_half", "banker_reale", "banker_pair7", "banker_skipped")
    )
    assert banker == t.rounds
    assert t.punter_hands == t.staked  # flat unit stakes: one chip per punter hand
    assert t.punter_hands >= t.rounds * spec.seats - 0  # every punter plays every round (splits add hands)
    assert t.punter_hands == t.rounds * spec.seats + c["splits"]
    assert c["rounds_with_split"] <= c["splits"]
    assert c["tie"] >= c["push"]
    if spec.bank == "house":
        assert c["bank_transfers"] == 0
    assert -4 <= t.edge <= 4 and t.half_width >= 0


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(["classic", "italian", "spanish", "hungarian"]),
    bank=st.sampled_from(["house", "player"]),
    punters=st.integers(1, 5),
    punter=st.sampled_from(["timid", "standard", "reckless", "counter", "stand:14", "stand:2,9:nosplit"]),
    banker=st.sampled_from(["house", "watcher", "greedy", "stand:15"]),
    tie_push=st.booleans(),
    seed=st.integers(0, 10**6),
)
def test_any_rule_set_and_strategies_play_out_with_counts_that_add_up(
    preset, bank, punters, punter, banker, tie_push, seed
):
    overrides = {"tie_rule": "push"} if tie_push else {}
    spec = Spec(
        preset=preset,
        bank=bank,
        punters=punters,
        punter=punter,
        banker=banker,
        hands=120,
        chunk=50,
        seed=seed,
        overrides=overrides,
    )
    result = run(spec, processes=1)
    _consistent(result.tally, spec)


def test_strategies_parse_and_refuse_nonsense():
    assert punter_strategy("stand:9,11").stands_on(9, 1) and not punter_strategy("stand:9,11").stands_on(9, 2)
    assert punter_strategy("stand:9,11").stands_on(11, 5)
    assert not punter_strategy("stand:12:nosplit").split
    for bad in ("stand:", "stand:0", "sometimes", "stand:10:always"):
        with pytest.raises(ValueError):
            punter_strategy(bad)


def _lab(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("DJANGO_SETTINGS_MODULE", None)  # python -m lab needs no Django settings and no database
    return subprocess.run(
        [sys.executable, "-m", "lab", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )


def test_python_m_lab_prints_json_and_plain_progress_lines_when_not_on_a_terminal():
    done = _lab(
        "simulate",
        "--preset",
        "spanish",
        "--hands",
        "600",
        "--chunk",
        "200",
        "--json",
        "--processes",
        "2",
        "--set",
        "tie_rule=push",
        "--set",
        "player_75_pays=3",
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["rounds"] == 600 and data["spec"]["overrides"] == {"player_75_pays": 3, "tie_rule": "push"}
    assert data["rules"]["tie_rule"] == "push" and data["rules"]["split_mode"] == "spanish"
    lo, hi = data["ci95"]
    assert lo < data["edge"] < hi
    assert set(data["frequencies"]) >= {"bust", "seven_half", "reale", "pair7", "tie", "splits", "bank_transfers"}
    assert "simulate: 600/600 hands" in done.stderr and "hands/s" in done.stderr and "±" in done.stderr
    assert "\x1b[" not in done.stderr  # no terminal codes in a pipe


def test_a_refused_rule_set_is_an_error_naming_the_toggle_not_a_traceback():
    done = _lab("simulate", "--hands", "10", "--set", "reale_pays=3")
    assert done.returncode == 2 and "reale_pays" in done.stderr and "Traceback" not in done.stderr
    done = _lab("simulate", "--hands", "10", "--punter", "sometimes")
    assert done.returncode == 2 and "unknown punter strategy" in done.stderr


def test_manage_py_simulate_prints_the_table_of_edge_and_frequencies():
    out = StringIO()
    call_command("simulate", "--hands", "400", "--chunk", "200", "--processes", "1", "--progress", "off", stdout=out)
    text = out.getvalue()
    assert "bank's edge" in text and "95% interval" in text and "punter hand busts" in text
    out = StringIO()
    call_command(
        "simulate", "--hands", "400", "--chunk", "200", "--json", "--progress", "off", "--bank", "player", stdout=out
    )
    assert json.loads(out.getvalue())["spec"]["punters"] == 4
