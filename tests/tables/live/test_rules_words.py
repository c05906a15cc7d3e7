"""The game information panel's rules in words (``tables.live.rules_words``): every preset at both banks says its
rules in each language, with the same figures in all four (GLI-19 5.2.1(m): the same information to every player)."""

from __future__ import annotations

import re

import pytest
from django.utils import translation

from rules.config import make_table_config
from tables.live.rules_words import rules_in_words

LANGUAGES = ("it", "es", "hu", "en")
CASES = [
    ("classic", "house", {}),
    ("classic", "player", {}),
    ("italian", "player", {}),
    ("spanish", "house", {}),
    ("hungarian", "player", {"fixed_stake": 10}),
]


@pytest.mark.parametrize(("preset", "bank", "extra"), CASES)
def test_each_language_says_the_same_rules_with_the_same_figures(preset, bank, extra):
    limits = {"min_bet": 10, "max_bet": 10} if preset == "hungarian" else {"min_bet": 5, "max_bet": 50}
    config = make_table_config(
        preset=preset, overrides=None, max_seats=4, bank=bank, turn_timeout_s=45, **limits, **extra
    )
    said = {}
    for language in LANGUAGES:
        with translation.override(language):
            said[language] = rules_in_words(config)
    with translation.override("en"):
        english = said["en"]
    for language, sentences in said.items():
        assert len(sentences) == len(english), language
        assert [re.findall(r"\d+(?:\.\d+)?", s) for s in sentences] == [
            re.findall(r"\d+(?:\.\d+)?", s) for s in english
        ], language
        if language != "en":
            assert not set(sentences) & set(english), f"{language}: still in English"
    assert any("45" in s for s in english) and any("5" in s for s in english)
