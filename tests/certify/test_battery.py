"""The RNG battery passes the honest shuffle and fails each planted fault at its documented sample size
(docs/certification.md, "What the battery catches"). The decks are drawn from a fixed master seed: the same
figures on every run, no chance of a flaky verdict."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from certify import battery, dieharder, keystream
from certify.stats import bonferroni
from gamemath.shuffle import shuffle_deck

MASTER = b"issue-48"
#: The sample size docs/certification.md states for the planted faults (the short run's decks).
DECKS = battery.SHORT.decks


def _p(results: list, name: str) -> float:
    return next(p.p for p in results if p.name.startswith(name))


def test_the_keystream_is_what_the_shuffle_draws() -> None:
    server_seed, client_seed, nonce = next(keystream.seeds(MASTER))
    hand = keystream.hand_of(server_seed, client_seed, nonce)
    assert list(hand.deck) == shuffle_deck(server_seed, client_seed, nonce)
    assert len(hand.draws) >= 39  # one draw per swap, more when a draw is rejected
    assert len(keystream.keystream_bytes(hand)) == 4 * len(hand.draws)


def test_the_honest_shuffle_passes_the_deck_tests() -> None:
    results = battery.deck_tests(DECKS, MASTER)
    assert all(p.p > bonferroni(3) for p in results), results


def test_a_card_that_is_never_first_fails_the_first_card_test(plant_never_first: None) -> None:
    results = battery.deck_tests(DECKS, MASTER)
    assert _p(results, "first card") < 1e-12
    assert _p(results, "card by position") < 1e-6


def test_a_modulo_biased_scaling_fails_the_card_by_position_test(plant_byte_modulo: None) -> None:
    results = battery.deck_tests(DECKS, MASTER)
    assert _p(results, "card by position") < 1e-12


def test_dieharder_output_is_read_line_by_line() -> None:
    output = (
        "   test_name   |ntup| tsamples |psamples|  p-value |Assessment\n"
        "   diehard_birthdays|   0|       100|     100|0.74584426|  PASSED  \n"
        "      sts_serial|   1|    100000|     100|0.00000012|  FAILED  \n"
    )
    found = dieharder.parse(output)
    assert [(p.name, p.p) for p in found] == [
        ("dieharder diehard_birthdays ntup=0", 0.74584426),
        ("dieharder sts_serial ntup=1", 1.2e-07),
    ]


@pytest.mark.slow
def test_the_short_battery_writes_one_report_with_every_p_value_and_the_rule(tmp_path) -> None:
    out = tmp_path / "battery"
    call_command("rng_battery", "--out", str(out), "--master", MASTER.hex())
    data = json.loads(out.with_suffix(".json").read_text())
    markdown = out.with_suffix(".md").read_text()
    assert data["verdict"] == "PASS"
    assert "Bonferroni" in data["rule"] and data["rule"] in markdown
    assert markdown.index("Verdict rule") < markdown.index("| test |")  # the rule comes before the figures
    names = [p["test"] for p in data["pvalues"]]
    assert {"card by position (40 x 40)", "first card", "first two cards (ordered pair)"} <= set(names)
    assert any(n.startswith("SP 800-22 ") for n in names)
    if dieharder.available():
        assert any(n.startswith("dieharder ") for n in names)
    else:
        assert any("dieharder not run" in note for note in data["notes"])
    assert data["threshold"] == pytest.approx(0.01 / len(names))
