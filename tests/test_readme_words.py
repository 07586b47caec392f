"""The README is read in five minutes: what densing does, the two commands and the answer come before the first
example in at most 700 words; the method, its rules and its studies are one link away."""

from __future__ import annotations

import re

from conftest import REPO_ROOT

#: The most words README.md may hold before its first example.
MOST_WORDS = 700
FIRST_EXAMPLE = "## One example per interface"


def words_before_the_first_example(text: str) -> int:
    """The words of ``text`` before its first example's heading: runs of characters between spaces, code included."""
    head = text.split(FIRST_EXAMPLE, 1)[0]
    return len(re.findall(r"\S+", head))


def test_the_readme_gives_its_answer_before_the_first_example_in_at_most_700_words():
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert FIRST_EXAMPLE in text
    assert words_before_the_first_example(text) <= MOST_WORDS
    head = text.split(FIRST_EXAMPLE, 1)[0]
    assert "docs/method.md" in head and "pip install" in head  # the method one link away, the two commands


def test_the_count_reads_every_word_up_to_the_heading():
    assert words_before_the_first_example("a b\nc `d e`\n" + FIRST_EXAMPLE + " f g") == 5
