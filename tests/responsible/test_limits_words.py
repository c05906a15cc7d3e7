"""Every word of ``/play/limits/`` is in the page's language (issue #46: the page was English in every language)."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import translation

from responsible.page_words import exclusion_names, limits_words


def _flat(words: dict[str, Any], prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in words.items():
        out.update(_flat(value, f"{prefix}{key}.") if isinstance(value, dict) else {prefix + key: value})
    return out


@pytest.mark.parametrize("language", ["it", "es", "hu"])
def test_every_word_of_the_limits_page_is_in_the_language(language):
    with translation.override("en"):
        english = _flat(limits_words()) | dict(exclusion_names())
    with translation.override(language):
        words = _flat(limits_words()) | dict(exclusion_names())
    assert words.keys() == english.keys()
    assert not {key for key, text in words.items() if text == english[key]}, f"{language}: still in English"
