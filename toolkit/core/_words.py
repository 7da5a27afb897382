"""The words and terms of text, compared alike in a tool's text and in a query.

Names are split at `_ . - /`, camelCase and digits (`getHTTPResponse2` is
`get http response 2`); text is case-folded, in compatibility form, with the
accents of Latin letters dropped; scripts written without spaces between
words (Chinese, Japanese) are read as overlapping pairs of letters. A term
is a word that is not a common English word ("the", "of", "with"), less its
English inflection, by a small suffix stemmer ("calculates", "calculating",
"calculation" and "calculator" all become "calcul").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from typing import Final

__all__ = ["read_run", "runs", "stem", "terms", "words"]

_RUN: Final = re.compile(r"[^\W_]+")
"""A run of letters and digits, in any script: everything else separates words."""

_ASCII_PART: Final = re.compile(r"[A-Z]+s(?![a-z])|[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
"""The parts of an ASCII run: `URLs`, `HTTP`, `Response`, `get`, `2`."""

_UNSPACED: Final = re.compile(
    r"([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+)"
)
"""A stretch of kana, CJK ideographs or Hangul: scripts written without spaces between words."""

_STOP_WORDS: Final = frozenset(
    """
    a about above after again against all am an and any are as at be because
    been before being below between both but by can could did do does doing
    down during each few for from further had has have having he her here hers
    herself him himself his how i if in into is it its itself just me more
    most my myself no nor not of off on once only or other our ours ourselves
    out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up
    very was we were what when where which while who whom why will with would
    you your yours yourself yourselves also e eg etc g ie may might must please
    shall us via whether yet
    """.split()  # noqa: SIM905  # a list of words reads best as text
)
"""English words that say nothing about what a tool does."""


def words(text: str) -> Iterator[str]:
    """The words of `text`, case- and accent-folded, split at camelCase and digits.

    Not stemmed, stop words kept: `words("getHTTPResponse_v2")` gives `get`,
    `http`, `response`, `v`, `2`.
    """
    for run in _RUN.findall(text):
        yield from _run_words(run)


def _run_words(run: str) -> list[str]:
    """The words of one run of letters and digits."""
    if not run.isascii():
        run = _fold(run)
        if not run.isascii():
            return _unspaced_words(run.casefold())
    return [part.lower() for part in _ASCII_PART.findall(run)]


def _unspaced_words(run: str) -> list[str]:
    """A run with letters of scripts written without spaces, as words.

    Chinese or Japanese text has no spaces between its words, so each
    stretch of such letters becomes its overlapping pairs of letters
    ("東京の天気" gives "東京", "京の", "の天", "天気"), as search engines
    index these scripts; the rest of the run stays whole.
    """
    found: list[str] = []
    for part in _UNSPACED.split(run):
        if not part:
            continue
        if len(part) > 2 and _UNSPACED.fullmatch(part):
            found.extend(part[start : start + 2] for start in range(len(part) - 1))
        else:
            found.append(part)
    return found


def terms(text: str) -> list[str]:
    """The terms of `text` that a search compares: its words, stop words left out, stemmed."""
    return [term for run in _RUN.findall(text) for term in read_run(run)[1]]


def _fold(run: str) -> str:
    """`run` in compatibility form (ﬁ → fi, fullwidth letters as ASCII), without accents on Latin letters (café → cafe).

    Marks on letters of other scripts stay: the voicing mark of Japanese
    kana, for one, makes another word.
    """
    kept: list[str] = []
    for char in unicodedata.normalize("NFKD", run):
        if not (kept and kept[-1].isascii() and unicodedata.combining(char)):
            kept.append(char)
    return unicodedata.normalize("NFC", "".join(kept))


# --- stemming -----------------------------------------------------------------

_VOWEL: Final = re.compile(r"[aeiouy]")

_DERIVATIONS: Final = (
    ("ational", "ate", 2),
    ("ization", "ize", 2),
    ("ation", "ate", 2),
    ("ator", "ate", 2),
    ("ness", "", 3),
    ("ment", "", 3),
    ("ion", "", 4),
    ("ly", "", 4),
    ("er", "", 4),
)
"""(suffix, replacement, least length of the stem left): the first that fits is used."""


def stem(word: str) -> str:
    """`word` without its English inflection and common derivational suffix.

    A small suffix stripper in the spirit of Porter's: plural `s`/`es`/`ies`,
    `ing` and `ed` (undoubling a final consonant: "running" → "run"), one
    derivational suffix (`ation`, `ator`, `ion`, `ment`, `ness`, `ly`, `er`),
    a trailing `ate` on a long stem and a final `e`. Words of three letters
    or fewer, and words that are not ASCII letters, are kept as they are.
    """
    if len(word) <= 3 or not word.isalpha() or not word.isascii():
        return word
    word = _strip_inflection(_strip_plural(word))
    for suffix, replacement, least in _DERIVATIONS:
        if word.endswith(suffix) and len(word) - len(suffix) >= least:
            word = _undouble(word[: -len(suffix)]) + replacement
            break
    if word.endswith("ate") and len(word) >= 8:
        word = word[:-3]
    if word.endswith("e") and len(word) >= 4:
        word = word[:-1]
    return word


def _strip_plural(word: str) -> str:
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        return word[:-1]
    return word


def _strip_inflection(word: str) -> str:
    if word.endswith("eed"):
        return word
    if word.endswith("ied") and len(word) > 4:
        return word[:-3] + "y"
    for suffix in ("ing", "ed"):
        stem_part = word[: -len(suffix)]
        if word.endswith(suffix) and len(stem_part) >= 3 and _VOWEL.search(stem_part):
            if stem_part.endswith(("at", "bl", "iz")):
                return stem_part + "e"  # "calculated" as "calculate", to strip alike
            return _undouble(stem_part)
    return word


def _undouble(word: str) -> str:
    """`word` with a doubled final consonant made single ("runn" → "run"), except l, s, z."""
    last = word[-1:]
    if len(word) > 2 and last == word[-2] and last not in "aeiouylsz":
        return word[:-1]
    return word


def read_run(run: str) -> tuple[list[str], tuple[str, ...]]:
    """The words of a run, and its terms: the words less the stop words, stemmed."""
    run_words = _run_words(run)
    return run_words, tuple(stem(word) for word in run_words if word not in _STOP_WORDS)


def runs(text: str) -> list[str]:
    """The runs of letters and digits in `text`, each one word or more (`getWeather`, `v2`)."""
    return _RUN.findall(text)
