"""Ranking tools for a free-text query: BM25F over a tool's name, description and parameters.

A catalog of hundreds of tools is too large to send to a model on every
turn; the model (or the host) searches it instead. `SearchIndex` ranks tools
by the words they share with a query, each word weighed by how rare it is in
the catalog (BM25's inverse document frequency) and by where the tool holds
it: a word of the tool's name counts most, then parameter names, the
description (with the `returns` text, when the tool has one), and last the
text inside the parameters' schemas (their descriptions, titles and enum
values).

Words are compared after the same normalisation on both sides (`_words`):
names split at `_ . - /`, camelCase and digits, text case- and
accent-folded, common English words dropped, English inflections stripped.

All the per-word arithmetic is done when the index is built: each word keeps
the tools that contain it with its share of each one's score, so a query
touches only the tools that share a word with it, and adds a common word
only to the tools that can still be among the best (`SearchIndex._scores`).
The build reads each text of the catalog once, however many tools repeat
it, and each run of letters once (`_Texts`, `_Runs`).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Mapping, Sequence
from itertools import chain
from typing import Any, Final, Protocol

from toolkit.core._aliases import SUBSCHEMA_KEYWORDS
from toolkit.core._exceptions import DuplicateToolError
from toolkit.core._words import read_run, runs

__all__ = ["SearchIndex", "Searchable", "search"]


class Searchable(Protocol):
    """What `SearchIndex` reads of a tool: a `Tool`, an `AITool`, or any object with these."""

    @property
    def name(self) -> str:
        """The tool's name, returned by a search."""

    @property
    def description(self) -> str | None:
        """What the tool does."""

    @property
    def parameters(self) -> Mapping[str, Any] | None:
        """The JSON Schema of the tool's arguments."""


_WEIGHTS: Final = (3.0, 1.5, 1.0, 0.5)
"""How much one occurrence of a word counts in each field of a tool (`_fields`: name,
parameter names, description, schema text), against one in the description."""

_LENGTH_NORMS: Final = (0.5, 0.5, 0.75, 0.75)
"""BM25's `b` per field: how much a long field dilutes each of its words."""

_SATURATION: Final = 1.2
"""BM25's `k1`: how quickly repeating a word stops adding to a tool's score."""

_EXACT_NAME_LEAD: Final = 1.0
"""How far above the best other score a tool named by the whole query is placed."""

# --- the text of a tool -------------------------------------------------------


def _fields(item: Searchable) -> tuple[str, str, str, str]:
    """The text of each field of a tool: name, parameter names, description, schema text."""
    description = item.description or ""
    returns = getattr(item, "returns", None)
    if isinstance(returns, str) and returns:
        description = f"{description}\n{returns}"
    names: list[str] = []
    texts: list[str] = []
    _read_schema(item.parameters, names, texts)
    return item.name, " ".join(names), description, " ".join(texts)


_TEXTS: Final = frozenset({"description", "title", "const"})
"""Keywords of a schema whose text values are free text (beside `enum`, which lists some)."""

_SUBSCHEMAS: Final = frozenset(SUBSCHEMA_KEYWORDS)

_DEFINITIONS: Final = frozenset(
    {"$defs", "definitions", "patternProperties", "dependentSchemas"}
)
"""Keywords of a schema whose values map names to schemas."""

_READ: Final = _TEXTS | _DEFINITIONS | {"enum", "properties"}
"""The keywords that `_read_keyword` reads."""


def _read_schema(schema: object, names: list[str], texts: list[str]) -> None:
    """Collect the property names and the text (descriptions, titles, enum and const values) of a schema.

    Walks every nested schema (properties, items, unions, definitions, ...)
    with a stack, so a deep schema cannot exhaust the recursion limit; each
    node's keywords are read in one pass over them.
    """
    pending: list[object] = [schema]
    while pending:
        node = pending.pop()
        if isinstance(node, list):
            pending.extend(node)
        elif isinstance(node, dict) or isinstance(node, Mapping):  # noqa: SIM101  # a dict is told apart much faster
            for key, value in node.items():
                if key in _SUBSCHEMAS:
                    pending.append(value)
                elif key in _READ:
                    _read_keyword(key, value, names, texts, pending)


def _read_keyword(
    key: str, value: object, names: list[str], texts: list[str], pending: list[object]
) -> None:
    """Collect what one keyword of `_READ` holds: text, property names, names of definitions; its schemas go to `pending`."""
    if key in _TEXTS:
        if isinstance(value, str):
            texts.append(value)
    elif key == "enum":
        if isinstance(value, list):
            texts.extend(item for item in value if isinstance(item, str))
    elif isinstance(value, Mapping):  # properties, or definitions
        (names if key == "properties" else texts).extend(map(str, value))
        pending.extend(value.values())


# --- the index ----------------------------------------------------------------


Read = tuple[list[str], tuple[str, ...]]
"""The words and the terms of one run of letters and digits (`read_run`)."""


class _Runs(dict[str, Read]):
    """The read of each run of letters and digits in the catalog, made on its first sight (`read_run`).

    A catalog says the same words again and again: each run is read once.
    """

    __slots__ = ()

    def __missing__(self, run: str) -> Read:
        read = self[run] = read_run(run)
        return read


def _read(text: str, known: _Runs, *, keep: bool) -> tuple[list[str], list[str]]:
    """The words and the terms of `text`, each run read once: looked up in `known`, kept there if `keep`."""
    found_words: list[str] = []
    found_terms: list[str] = []
    for run in runs(text):
        read = known[run] if keep else known.get(run) or read_run(run)
        found_words += read[0]
        found_terms += read[1]
    return found_words, found_terms


class _Texts(dict[str, tuple[str, ...]]):
    """The terms of each text of the catalog, read on its first sight.

    A catalog repeats its texts (the same parameters and their descriptions
    on many tools, the tools of one server saying the same things), so each
    text is read once, and each run of it once (`runs`).
    """

    __slots__ = ("runs",)

    def __init__(self) -> None:
        super().__init__()
        self.runs = _Runs()

    def __missing__(self, text: str) -> tuple[str, ...]:
        known = self.runs
        found = self[text] = tuple(
            chain.from_iterable([known[run][1] for run in runs(text)])
        )
        return found


class SearchIndex:
    """Tools ranked for free-text queries; built once, searched many times.

    Build it from the catalog (`SearchIndex(toolset)`, `SearchIndex([tool, ...])`);
    it keeps no reference to the tools, only their names and the index.
    A search reads the index and changes nothing, so one index may serve
    several threads at once.

    Raises:
        DuplicateToolError: Two tools have the same name (a search returns names).
    """

    __slots__ = ("_exact", "_names", "_peaks", "_postings", "_runs")

    def __init__(self, tools: Iterable[Searchable]) -> None:
        texts = _Texts()
        known = texts.runs
        names: list[str] = []
        counts: list[list[tuple[str, ...]]] = []
        exact: dict[tuple[str, ...], list[int]] = {}
        for item in tools:
            name, *others = _fields(item)
            # A name is read once: its words find the tool it names, its terms score it.
            name_words, name_terms = _read(name, known, keep=True)
            exact.setdefault(tuple(name_words), []).append(len(names))
            names.append(name)
            counts.append([tuple(name_terms), *[texts[text] for text in others]])
        _refuse_duplicates(names)
        self._names: tuple[str, ...] = tuple(names)
        self._postings = _postings(counts)
        self._peaks = {
            term: max(shares.values()) for term, shares in self._postings.items()
        }
        self._exact = {key: tuple(found) for key, found in exact.items()}
        self._runs = known

    def __len__(self) -> int:
        """The number of tools in the index."""
        return len(self._names)

    def search(self, query: str, k: int = 5) -> list[tuple[str, float]]:
        """The `k` tools that best match `query`, best first, with their scores.

        A tool matches when it shares a word with the query; tools that
        match equally keep their order in the catalog. A query that is a
        tool's whole name (`get_weather`, `get weather`, `getWeather`) puts
        that tool first. A query with no word of the catalog, or `k` below
        1, finds nothing.

        Args:
            query: Any text: keywords, a question, a tool's name.
            k: How many tools to return at most.

        Returns:
            `(name, score)` pairs, scores never increasing.
        """
        if k < 1 or not self._names:
            return []
        query_words, query_terms = _read(query, self._runs, keep=False)
        scores = self._scores(query_terms, k)
        named = self._exact.get(tuple(query_words), ())
        if named:
            lead = max(scores.values(), default=0.0) + _EXACT_NAME_LEAD
            scores.update(dict.fromkeys(named, lead))
        return [(self._names[index], score) for index, score in _best(scores, k)]

    def _scores(self, query_terms: Iterable[str], k: int) -> dict[int, float]:
        """The scores of the tools that may be among the best `k` for a query, by catalog position.

        Terms are added rarest first (the largest share first). Once the
        shares still to come could not lift a tool that has none of the
        terms added so far up to the `k`-th best score, later terms only
        add to the tools already scored: the best `k` are found without
        scoring every tool that holds a common word. Whether that point is
        reached is asked again each time the shares still to come have
        halved, so that a long query does not rank its tools at every term.
        """
        peaks = self._peaks
        terms = sorted(
            (term for term in dict.fromkeys(query_terms) if term in peaks),
            key=peaks.__getitem__,
            reverse=True,
        )
        # The most the terms from each one on can add to a tool's score.
        still = [peaks[term] for term in terms]
        for position in range(len(still) - 2, -1, -1):
            still[position] += still[position + 1]
        scores: dict[int, float] = {}
        closed = False  # no tool outside `scores` can reach the best k any more
        ask_below = math.inf
        for term, reach in zip(terms, still, strict=True):
            if not closed and reach < ask_below and len(scores) >= k:
                closed = reach * _ROUNDING < heapq.nlargest(k, scores.values())[-1]
                ask_below = reach / 2
            _add(scores, self._postings[term], closed=closed)
        return scores


_ROUNDING: Final = 1.0 + 1e-9
"""A margin over the sum of the shares still to come, for the rounding of float sums."""


def _add(scores: dict[int, float], shares: dict[int, float], *, closed: bool) -> None:
    """Add a term's shares to `scores`; only to the tools already there when `closed`."""
    if not closed:
        get = scores.get
        for index, share in shares.items():
            scores[index] = get(index, 0.0) + share
    elif len(shares) < len(scores):
        for index, share in shares.items():
            if index in scores:
                scores[index] += share
    else:
        find = shares.get
        for index in scores:
            held = find(index)
            if held is not None:
                scores[index] += held


def _best(scores: dict[int, float], k: int) -> list[tuple[int, float]]:
    """The `k` best `(position, score)` pairs, best first; the earlier tool first on a tie."""
    if len(scores) > k:
        cut = heapq.nlargest(k, scores.values())[-1]
        return sorted(
            [(index, score) for index, score in scores.items() if score >= cut],
            key=_rank,
            reverse=True,
        )[:k]
    return sorted(scores.items(), key=_rank, reverse=True)


def _rank(item: tuple[int, float]) -> tuple[float, int]:
    """Higher scores first; on a tie, the tool earlier in the catalog."""
    index, score = item
    return score, -index


def _refuse_duplicates(names: Sequence[str]) -> None:
    if len(set(names)) == len(names):
        return
    seen: set[str] = set()
    for name in names:
        if name in seen:
            msg = f"Two tools are named {name!r}; a search returns names, so each tool needs its own. Rename one"
            raise DuplicateToolError(msg, name=name)
        seen.add(name)


def _postings(
    counts: Sequence[Sequence[tuple[str, ...]]],
) -> dict[str, dict[int, float]]:
    """For each term, the tools holding it and the term's share of each tool's score (BM25F).

    A term's count in each field is weighed by the field's weight and
    divided by the field's length relative to the catalog's average; the
    weighed counts are summed over the fields, saturated once with `k1`, and
    multiplied by the term's inverse document frequency.
    """
    documents = len(counts)
    averages = [
        max(sum(len(tool[field]) for tool in counts) / max(documents, 1), 1.0)
        for field in range(len(_WEIGHTS))
    ]
    postings: dict[str, dict[int, float]] = {}
    for index, fields in enumerate(counts):
        for term, frequency in _weighed_frequencies(fields, averages).items():
            held = postings.get(term)
            if held is None:
                postings[term] = {index: frequency}
            else:
                held[index] = frequency
    for holders in postings.values():
        rarity = math.log(1.0 + (documents - len(holders) + 0.5) / (len(holders) + 0.5))
        for (
            index,
            frequency,
        ) in holders.items():  # the same keys: the dict keeps its size
            holders[index] = (
                rarity * frequency * (_SATURATION + 1.0) / (frequency + _SATURATION)
            )
    return postings


def _weighed_frequencies(
    fields: Sequence[tuple[str, ...]], averages: Sequence[float]
) -> dict[str, float]:
    """Each term's count over the fields of one tool, weighed and length-normalised per field."""
    frequencies: dict[str, float] = {}
    get = frequencies.get
    for field, found in enumerate(fields):
        norm = _LENGTH_NORMS[field]
        scale = _WEIGHTS[field] / (1.0 - norm + norm * len(found) / averages[field])
        for term in found:
            frequencies[term] = get(term, 0.0) + scale
    return frequencies


def search(
    tools: Iterable[Searchable], query: str, k: int = 5
) -> list[tuple[str, float]]:
    """Rank `tools` for `query` once: `SearchIndex(tools).search(query, k)`.

    Build a `SearchIndex` instead to search the same catalog more than once.
    """
    return SearchIndex(tools).search(query, k)
