"""Tool search: what ranks first, what text counts, and that no query breaks it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit import (
    AITool,
    DuplicateToolError,
    Tool,
    ToolResult,
    ToolSet,
    tool,
)
from toolkit.core import _words
from toolkit.core._words import stem, terms, words
from toolkit.sets import _search
from toolkit.sets._search import SearchIndex, _fields, _read, search


@dataclass(frozen=True)
class Entry:
    """Anything with a name, a description and parameters can be searched."""

    name: str
    description: str = ""
    parameters: Mapping[str, Any] = field(
        default_factory=lambda: {"type": "object", "properties": {}}
    )


def names(found: list[tuple[str, float]]) -> list[str]:
    return [name for name, _ in found]


def _ok(agent_id: str, call_id: str, args: dict[str, Any]) -> ToolResult:
    return ToolResult("ok")


CATALOG = [
    Entry(
        "get_weather",
        "Current weather for a city.",
        {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "The city name."}},
        },
    ),
    Entry(
        "send_email",
        "Send an email message to a recipient.",
        {
            "type": "object",
            "properties": {
                "to": {"type": "string", "description": "The address."},
                "body": {"type": "string"},
            },
        },
    ),
    Entry("calculate_triangle_area", "Area of a triangle from its base and height."),
    Entry(
        "convert_currency",
        "Convert an amount between currencies.",
        {
            "type": "object",
            "properties": {
                "amount": {"type": "number"},
                "target": {"type": "string", "enum": ["EUR", "USD", "yen"]},
            },
        },
    ),
    Entry(
        "weather_forecast",
        "Forecast of the weather, weather and weather, for days ahead.",
    ),
    Entry(
        "book_flight",
        "Book a plane ticket.",
        {
            "type": "object",
            "properties": {
                "passenger": {
                    "type": "object",
                    "properties": {"passport_number": {"type": "string"}},
                },
                "legs": {
                    "type": "array",
                    "items": {"$ref": "#/$defs/Leg"},
                },
            },
            "$defs": {
                "Leg": {
                    "type": "object",
                    "properties": {
                        "airport": {"description": "IATA code of the departure airport"}
                    },
                }
            },
        },
    ),
]


# ----------------------------------------------------------------- ranking


def test_a_query_that_is_a_tools_name_ranks_it_first() -> None:
    catalog = [
        Entry("get_weather", "Current conditions."),
        Entry(
            "weather_report", "Get the weather: weather now, weather later, get it all."
        ),
    ]
    index = SearchIndex(catalog)
    # By its words alone, the query matches weather_report better...
    assert names(index.search("get weather now")) == ["weather_report", "get_weather"]
    # ...but a query that is get_weather's whole name finds it first.
    for query in (
        "get_weather",
        "get weather",
        "getWeather",
        "GET-WEATHER",
        " get_weather ",
    ):
        assert names(index.search(query)) == ["get_weather", "weather_report"], query


def test_an_exact_name_leads_even_when_its_words_score_nothing() -> None:
    index = SearchIndex([Entry("other", "do it"), Entry("do_it", "x")])
    # "do" and "it" are stop words: only the exact name can find the tool.
    assert index.search("do it") == [("do_it", 1.0)]


def test_a_word_of_the_description_finds_the_tool() -> None:
    assert names(search(CATALOG, "recipient"))[:1] == ["send_email"]
    assert names(search(CATALOG, "Which plane ticket?"))[:1] == ["book_flight"]


def test_the_name_counts_more_than_the_description() -> None:
    catalog = [
        Entry("report", "Make a forecast of sales."),
        Entry("forecast", "Make a report of sales."),
    ]
    assert names(search(catalog, "sales forecast")) == ["forecast", "report"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("city", "get_weather"),  # a parameter's name
        ("address", "send_email"),  # a parameter's description
        ("yen", "convert_currency"),  # an enum value
        ("passport", "book_flight"),  # a property of a nested object
        # A property of a schema in $defs, which the parameters reach by items.
        ("departure airport", "book_flight"),
    ],
)
def test_parameter_text_counts(query: str, expected: str) -> None:
    assert names(search(CATALOG, query))[:1] == [expected]


def test_every_text_of_a_schema_is_read_once_in_its_field() -> None:
    """Property names in one field; descriptions, titles, enum and const values, names of definitions in the other."""
    parameters = {
        "type": "object",
        "title": "Order",
        "properties": {
            "kind": {"const": "parcel", "description": "What is sent."},
            "size": {"anyOf": [{"enum": ["small", 3, "large"]}, {"type": "null"}]},
            "tags": {"type": "array", "items": {"title": "Tag"}},
        },
        "patternProperties": {"^x_": {"description": "Extension."}},
        "not": {"description": "Never this."},
        "$defs": {"Address": {"properties": {"street": {"title": "Street"}}}},
        "additionalProperties": False,
        "required": ["kind"],
    }
    name, parameter_names, description, schema_text = _fields(
        Entry("send", "Send it.", parameters)
    )
    assert (name, description) == ("send", "Send it.")
    assert sorted(parameter_names.split()) == ["kind", "size", "street", "tags"]
    texts = ["Order", "parcel", "What is sent.", "small", "large", "Tag"]
    texts += ["^x_", "Extension.", "Never this.", "Address", "Street"]
    assert sorted(schema_text.split()) == sorted(" ".join(texts).split())


def test_inflections_meet_at_one_stem() -> None:
    index = SearchIndex(CATALOG)
    for query in ("calculating triangles", "calculation of a triangle", "calculated"):
        assert names(index.search(query))[:1] == ["calculate_triangle_area"], query
    assert stem("calculates") == stem("calculation") == stem("calculator") == "calcul"
    assert stem("running") == "run"
    assert stem("cities") == stem("city")


def test_words_split_names_and_fold_case_and_accents() -> None:
    assert list(words("getHTTPResponse_v2")) == ["get", "http", "response", "v", "2"]
    assert list(words("math.factorial/URLs-list")) == [
        "math",
        "factorial",
        "urls",
        "list",
    ]
    assert list(words("Café 東京")) == ["cafe", "東京"]
    assert list(words("\uff26\uff35\uff2c\uff2c \ufb01le")) == [
        "full",
        "file",
    ]  # fullwidth, ligature
    # Scripts written without spaces are read as overlapping pairs of letters.
    assert list(words("東京の天気")) == ["東京", "京の", "の天", "天気"]
    assert list(words("ガイド")) == ["ガイ", "イド"]  # the voicing mark stays
    assert terms("the weather of the cities") == ["weath", "city"]


def test_equal_scores_keep_the_catalog_order() -> None:
    twins = [Entry(f"tool_{letter}", "Look up stock prices.") for letter in "abcdef"]
    assert names(search(twins, "stock prices", k=10)) == [e.name for e in twins]
    backwards = twins[::-1]
    assert names(search(backwards, "stock prices", k=3)) == [
        e.name for e in backwards[:3]
    ]
    scores = {score for _, score in search(twins, "stock", k=10)}
    assert len(scores) == 1


def test_tools_made_by_the_package_are_searched() -> None:
    @tool
    def lookup_order(order_id: str) -> str:
        """Find an order by its identifier.

        Args:
            order_id: The order's tracking number.
        """
        return order_id

    raw = Tool.new(
        name="cancel_subscription",
        description="Stop a subscription.",
        parameters={"type": "object", "properties": {"plan": {"type": "string"}}},
        execute_fn=_ok,
        returns="The date the subscription ends.",
    )
    index = SearchIndex([lookup_order, raw, AITool("ping", "Check a host.", {})])
    assert len(index) == 3
    assert names(index.search("tracking number"))[:1] == ["lookup_order"]
    assert names(index.search("when does it end"))[:1] == ["cancel_subscription"]
    assert names(index.search("host"))[:1] == ["ping"]
    assert names(SearchIndex(ToolSet([lookup_order, raw])).search("order")) == [
        "lookup_order"
    ]


def test_two_tools_of_one_name_are_refused() -> None:
    with pytest.raises(DuplicateToolError) as caught:
        SearchIndex([Entry("twin"), Entry("other"), Entry("twin")])
    assert caught.value.name == "twin"


# ----------------------------------------------------------------- odd input


@pytest.mark.parametrize(
    "query",
    [
        "",
        "   ",
        "\n\t",
        "?!.,;:-_/()[]{}",
        "the of and",
        "zzzz qqqq",
        "🙂🙃",
        "\x00\ud800",
    ],
)
def test_queries_without_a_known_word_find_nothing(query: str) -> None:
    assert SearchIndex(CATALOG).search(query) == []


def test_an_empty_catalog_finds_nothing() -> None:
    index = SearchIndex([])
    assert len(index) == 0
    assert index.search("weather") == []
    assert search([], "") == []


@pytest.mark.parametrize("k", [0, -1, -100])
def test_k_below_one_finds_nothing(k: int) -> None:
    assert SearchIndex(CATALOG).search("weather", k=k) == []


def test_k_above_the_catalog_returns_every_match_once() -> None:
    found = names(SearchIndex(CATALOG).search("weather", k=1000))
    assert found == ["weather_forecast", "get_weather"]


def test_a_huge_query_is_answered() -> None:
    query = " ".join(f"word{n} weather" for n in range(50_000)) + " ticket"
    found = names(SearchIndex(CATALOG).search(query, k=3))
    assert set(found) >= {"weather_forecast", "get_weather"}


def test_unicode_queries_and_catalogs() -> None:
    catalog = [
        Entry("cafe_menu", "Menu du café, crème brûlée."),
        Entry("tokyo_guide", "東京 の ガイド"),
        Entry("emoji", "🙂 only"),
    ]
    index = SearchIndex(catalog)
    assert names(index.search("CAFE creme"))[:1] == ["cafe_menu"]
    assert names(index.search("東京"))[:1] == ["tokyo_guide"]
    assert names(index.search("東京のガイドはどこ"))[:1] == ["tokyo_guide"]
    assert index.search("🙂") == []


@pytest.mark.parametrize(
    "parameters",
    [
        None,
        {},
        {"type": "object", "properties": None},
        {"type": "object", "properties": {"a": None, "b": [1, 2], "c": "text"}},
        {"enum": [1, None, {"x": 1}, "label"], "const": 3, "description": 7},
        {"$defs": ["not", "a", "mapping"], "items": [{"description": "tuple item"}]},
    ],
)
def test_odd_schemas_are_read_without_error(parameters: Any) -> None:
    index = SearchIndex([Entry("odd", "An odd tool.", parameters)])
    assert names(index.search("odd")) == ["odd"]


def test_a_deep_schema_is_read_without_recursion() -> None:
    schema: dict[str, Any] = {"description": "bottom"}
    for _ in range(5000):
        schema = {"type": "object", "properties": {"inner": schema}}
    assert names(search([Entry("deep", "", schema)], "bottom")) == ["deep"]


# ----------------------------------------------------------------- properties

_VOCABULARY = [
    "area",
    "city",
    "rate",
    "plan",
    "file",
    "user",
    "time",
    "list",
    "map",
    "key",
]
_NAMES = st.lists(st.sampled_from(_VOCABULARY), min_size=1, max_size=3).map("_".join)
_TEXT = st.lists(
    st.sampled_from([*_VOCABULARY, *"abc XYZ.,_-éß東", "the ", "tool "]), max_size=30
).map(" ".join)
_CATALOGS = st.lists(
    st.tuples(_NAMES, _TEXT, st.lists(_TEXT, max_size=3)),
    max_size=12,
    unique_by=lambda entry: entry[0],
).map(
    lambda entries: [
        Entry(
            name,
            description,
            {
                "type": "object",
                "properties": {
                    f"p{n}": {"type": "string", "description": text}
                    for n, text in enumerate(texts)
                },
            },
        )
        for name, description, texts in entries
    ]
)


@settings(max_examples=200, deadline=None)
@given(catalog=_CATALOGS, query=st.text(max_size=80) | _TEXT, k=st.integers(-2, 15))
def test_any_query_gives_at_most_k_distinct_names_best_first(
    catalog: list[Entry], query: str, k: int
) -> None:
    found = SearchIndex(catalog).search(query, k)
    assert len(found) <= max(k, 0)
    assert len({name for name, _ in found}) == len(found)
    assert {name for name, _ in found} <= {entry.name for entry in catalog}
    scores = [score for _, score in found]
    assert scores == sorted(scores, reverse=True)
    assert all(score > 0 for score in scores)


def _every_score(index: SearchIndex, query: str) -> dict[str, float]:
    """Every tool's score for `query`, summed over all of each term's shares."""
    _, query_terms = _read(query, index._runs, keep=False)
    scores: dict[str, float] = {}
    for term in dict.fromkeys(query_terms):
        for position, share in index._postings.get(term, {}).items():
            name = index._names[position]
            scores[name] = scores.get(name, 0.0) + share
    return scores


@settings(max_examples=200, deadline=None)
@given(catalog=_CATALOGS, query=_TEXT, k=st.integers(1, 6))
def test_the_tools_left_unscored_could_not_have_ranked(
    catalog: list[Entry], query: str, k: int
) -> None:
    """A search scores only some tools, yet finds the best k of scoring them all."""
    index = SearchIndex(catalog)
    if tuple(words(query)) in index._exact:
        return  # a query naming a tool puts it first, whatever its score
    every = _every_score(index, query)
    found = dict(index.search(query, k))
    assert len(found) == min(k, len(every))
    for name, score in found.items():
        assert score == pytest.approx(every[name])
    lowest = min(found.values(), default=0.0)
    assert all(
        score <= lowest * (1 + 1e-9)
        for name, score in every.items()
        if name not in found
    )


# ----------------------------------------------------------------- bounded work


def _common_and_rare(tools: int, rare: int) -> SearchIndex:
    """`tools` tools that all say "common"; the first `rare` also say "unusual"."""
    return SearchIndex(
        Entry(f"tool_{n}", "common text" + (" unusual" if n < rare else ""))
        for n in range(tools)
    )


def test_a_text_that_many_tools_share_is_read_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """50 tools with one description and one schema: 50 names and 3 shared texts are read."""
    read: list[str] = []

    def counting(text: str) -> list[str]:
        read.append(text)
        return _words.runs(text)

    monkeypatch.setattr(_search, "runs", counting)
    shared = {
        "type": "object",
        "properties": {"city": {"type": "string", "description": "The city."}},
    }
    index = SearchIndex(
        Entry(f"weather_{n}", "Weather for a city.", shared) for n in range(50)
    )
    assert len(read) == 50 + 3
    assert names(index.search("weather city", k=2)) == ["weather_0", "weather_1"]


def test_a_query_scores_only_the_tools_that_hold_its_words() -> None:
    index = _common_and_rare(2000, rare=7)
    _, query_terms = _read("unusual", index._runs, keep=False)
    assert len(index._scores(query_terms, 5)) == 7


def test_a_rarer_word_held_by_k_tools_does_not_shut_out_a_better_tool() -> None:
    """Five tools hold "alpha", the rarer word, scored first: "beta" in a name still ranks."""
    filler = " ".join(f"word{n}" for n in range(1000))
    catalog = [
        Entry("alpha_tool"),
        *(Entry(f"pad_{n}", f"{filler} alpha") for n in range(4)),
        Entry("beta_tool"),
        *(Entry(f"fill_{n}", f"{filler} beta") for n in range(5)),
        *(Entry(f"other_{n}", "other") for n in range(20)),
    ]
    found = names(search(catalog, "alpha beta", k=5))
    assert found == ["alpha_tool", "beta_tool", "pad_0", "pad_1", "pad_2"]


def test_a_common_word_is_not_scored_across_the_catalog_once_the_best_are_known() -> (
    None
):
    """With k=5 and ten tools holding the rare word, "common" adds only to those ten."""
    index = _common_and_rare(2000, rare=10)
    _, query_terms = _read("unusual common", index._runs, keep=False)
    assert len(index._scores(query_terms, 5)) == 10
    assert names(index.search("unusual common")) == [f"tool_{n}" for n in range(5)]
    # Asked for more than hold the rare word, the common word must be scored everywhere.
    _, query_terms = _read("unusual common", index._runs, keep=False)
    assert len(index._scores(query_terms, 11)) == 2000
