"""Levenshtein distance against nltk's edit distance, on characters and on words."""

from __future__ import annotations

import nltk
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.edit.distance import levenshtein
from tests.scoring.strategies import SETTINGS


@pytest.mark.parametrize(
    ("a", "b"), [("kitten", "sitting"), ("", "abc"), ("flaw", "lawn"), ("", "")]
)
def test_it_equals_nltks_edit_distance_on_characters(a: str, b: str) -> None:
    assert levenshtein(a, b) == nltk.edit_distance(a, b)


@SETTINGS
@given(
    st.lists(st.sampled_from("a b c the".split()), max_size=8),
    st.lists(st.sampled_from("a b d the".split()), max_size=8),
)
def test_it_equals_nltks_edit_distance_on_words(a: list[str], b: list[str]) -> None:
    assert levenshtein(a, b) == nltk.edit_distance(a, b)
