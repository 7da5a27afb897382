"""Schema patterns, matched in time linear in the text: a pattern never holds the event loop.

Python's `re` backtracks: `^(a+)+$` takes minutes on 29 characters, and the
match holds the GIL all along, so neither a timeout nor a worker thread can
stop it. A `pattern` comes from whoever wrote the schema, a remote MCP
server included, so toolkit never gives one to `re` to match. It reads the
pattern with Python's own parser (the syntax and the character classes are
`re`'s) and runs it as an automaton that follows every way of matching at
once (Thompson's construction), built lazily into a DFA (`_Search`): a
character whose move is known costs one dict look-up and no Python call
(about 100-150 ns, near `re` on texts where `re` does not backtrack), a new
move one pass over the states, so a search costs at most
`len(text) * states` steps, whatever the pattern. The verdict is the one
`re.search` gives.

What such an automaton cannot run is refused (`PatternError`): lookahead
and lookbehind, backreferences, atomic groups and possessive repeats (all
of which change which texts match), flags other than `s` (DOTALL), and
patterns of more than `MAX_STATES` states once counted repeats are written
out (`a{5000}`).
"""

from __future__ import annotations

import functools
import re
import sys
import threading
from collections.abc import Callable
from typing import Any, Final

if sys.version_info >= (3, 11):
    from re import _parser as sre
else:  # pragma: no cover
    import sre_parse as sre

__all__ = ["MAX_STATES", "PatternError", "searcher"]

MAX_STATES: Final = 2_000
"""The most states a pattern may have: a search costs at most this many steps per character."""

_CHAR, _SPLIT, _ASSERT, _MATCH = range(4)
_FLAGS_ALLOWED: Final = (
    sre.SRE_FLAG_UNICODE | sre.SRE_FLAG_DOTALL | sre.SRE_FLAG_VERBOSE
)


class PatternError(re.error):
    """A pattern that toolkit cannot match in linear time, or that Python cannot read."""


@functools.lru_cache(maxsize=1024)
def searcher(pattern: str) -> Callable[[str], bool]:
    """`search(text)`: whether `pattern` matches somewhere in `text`, as `re.search` says.

    Raises:
        PatternError: Python cannot read the pattern, or it needs what an
            automaton cannot do (the message says what).
    """
    try:
        parsed = sre.parse(pattern)
    except Exception as error:  # re.error, or a recursion on absurd nesting
        msg = f"Python cannot read it: {error}"
        raise PatternError(msg) from None
    flags = parsed.state.flags
    if flags & ~_FLAGS_ALLOWED:
        msg = "it sets flags other than s (DOTALL)"
        raise PatternError(msg) from None
    program = _Program(dotall=bool(flags & sre.SRE_FLAG_DOTALL))
    try:
        items: list[Any] = [parsed[index] for index in range(len(parsed))]
        start = program.sequence(items, program.add(_MATCH))
    except RecursionError:
        msg = "it nests too deeply"
        raise PatternError(msg) from None
    return program.searcher(start)


class _Program:
    """The automaton's states, built from the end of the pattern to its start."""

    def __init__(self, *, dotall: bool) -> None:
        self.dotall = dotall
        self.kind: list[int] = []
        self.test: list[Any] = []  # a character test, or a position test
        self.out: list[int] = []
        self.other: list[int] = []  # a split's second way

    def add(self, kind: int, test: Any = None, out: int = -1, other: int = -1) -> int:
        if len(self.kind) >= MAX_STATES:
            msg = (
                f"it has more than {MAX_STATES} states once its repeats are written out"
            )
            raise PatternError(msg)
        self.kind.append(kind)
        self.test.append(test)
        self.out.append(out)
        self.other.append(other)
        return len(self.kind) - 1

    def sequence(self, items: list[tuple[Any, Any]], after: int) -> int:
        for op, value in reversed(items):
            after = self.item(str(op), value, after)
        return after

    def item(self, op: str, value: Any, after: int) -> int:
        if op in ("LITERAL", "NOT_LITERAL", "ANY", "IN"):
            return self.add(_CHAR, self.char_test(op, value), after)
        if op == "AT":
            return self.add(_ASSERT, _position_test(str(value)), after)
        if op == "BRANCH":
            ways = [self.sequence(list(branch), after) for branch in value[1]]
            start = ways.pop()
            for way in reversed(ways):
                start = self.add(_SPLIT, None, way, start)
            return start
        if op == "SUBPATTERN":
            _group, add_flags, del_flags, inner = value
            if add_flags or del_flags:
                msg = "it sets flags inside a group"
                raise PatternError(msg) from None
            return self.sequence(list(inner), after)
        if op in ("MAX_REPEAT", "MIN_REPEAT"):  # greedy or lazy: the same texts match
            low, high, inner = value
            return self.repeat(low, high, inner, after)
        msg = f"it uses {_NAMES.get(op, op)}, which only a backtracking matcher can run"
        raise PatternError(msg)

    def repeat(self, low: int, high: int, inner: Any, after: int) -> int:
        body = list(inner)
        if high == sre.MAXREPEAT:
            loop = self.add(_SPLIT, None, -1, after)
            self.out[loop] = self.sequence(body, loop)
            start = loop
        else:
            start = after
            for _ in range(high - low):
                start = self.add(_SPLIT, None, self.sequence(body, start), after)
        for _ in range(low):
            start = self.sequence(body, start)
        return start

    def char_test(self, op: str, value: Any) -> Callable[[str], bool]:
        if op == "LITERAL":
            char = chr(value)
            return char.__eq__
        if op == "NOT_LITERAL":
            char = chr(value)
            return char.__ne__
        if op == "ANY":
            return _anything if self.dotall else _not_newline
        tests: list[Callable[[str], bool]] = []
        negated = False
        for kind, item in value:
            kind = str(kind)
            if kind == "NEGATE":
                negated = True
            elif kind == "LITERAL":
                tests.append(chr(item).__eq__)
            elif kind == "RANGE":
                tests.append(_between(chr(item[0]), chr(item[1])))
            elif kind == "CATEGORY":
                tests.append(_CATEGORIES[str(item)])
            else:  # pragma: no cover  # what the parser puts in a class is above
                msg = f"it uses {kind} in a character class"
                raise PatternError(msg) from None
        if negated:
            return lambda char: not any(test(char) for test in tests)
        return lambda char: any(test(char) for test in tests)

    def searcher(self, start: int) -> Callable[[str], bool]:
        """The search from state `start` (`_Search`)."""
        return _Search(self, start)

    def _anchored(self, start: int) -> bool:
        r"""Whether no way of matching starts past the text's first position (the pattern opens with `^` or `\A`).

        Then a search need not start one again at each character, and it
        ends as soon as no way is left.
        """
        for flags in range(16):
            later: _Seen = (
                False,
                bool(flags & 1),
                bool(flags & 2),
                bool(flags & 4),
                bool(flags & 8),
            )
            if self.closure((start,), later) != ((), False):
                return False
        return True

    def closure(
        self, states: tuple[int, ...], seen: _Seen | None
    ) -> tuple[tuple[int, ...], bool]:
        """The character states reachable from `states` without reading; whether the match state is."""
        kind, test, out, other = self.kind, self.test, self.out, self.other
        visited: set[int] = set()
        found: set[int] = set()
        pending = list(states)
        while pending:
            state = pending.pop()
            if state in visited:
                continue
            visited.add(state)
            what = kind[state]
            if what == _CHAR:
                found.add(state)
            elif what == _SPLIT:
                pending.append(other[state])
                pending.append(out[state])
            elif what == _ASSERT:
                if test[state](seen):
                    pending.append(out[state])
            else:
                return (), True
        return tuple(sorted(found)), False


_KEPT: Final = 65_536
"""Moves a pattern's search keeps before it starts a fresh table."""
_REMEMBERED: Final = 4_096
"""Texts at least this long have their last verdict kept."""
_MATCHED: Final = -1
"""The DFA state in which the pattern matched: the search ends, True."""
_DEAD: Final = -2
"""The DFA state of an anchored pattern with no way left: the search ends, False."""


class _Table:
    """A lazy DFA's states and the moves met so far."""

    __slots__ = ("edges", "ids", "kept", "rows", "sets")

    def __init__(self) -> None:
        self.ids: dict[tuple[int, ...], int] = {}  # a set of states → its number
        self.sets: list[tuple[int, ...]] = []  # its number → the set
        self.rows: list[dict[str, int]] = []  # its moves on middle positions
        self.edges: dict[tuple[int, str, _Seen | None], int] = {}  # the other moves
        self.kept = 0


_Seen = tuple[bool, bool, bool, bool, bool]
"""What the anchors see at a position: the start, the end, a last newline next, a word character before, one after."""


class _Search:
    r"""A pattern's search: a lazy DFA, each of its states a set of the automaton's states.

    The states after a character depend only on the states before it, the
    character and what the anchors see at the next position (`_Seen`),
    which is the same (`_MIDDLE`) everywhere but at the text's last two
    positions unless the pattern has `\b` or `\B`. So each DFA state keeps
    its moves on the middle positions as a dict from character to the next
    DFA state's number: a character whose move is known costs one dict
    look-up and no Python call, a new move one pass over the states. A
    pattern that can only match from the text's start (`^...`, `\A...`)
    stops at the first character from which no way of matching is left.
    At most `_KEPT` moves are kept; past them a fresh table starts (a
    search already running goes on in it). Searches in several threads
    share the tables; a new move is added under a lock.
    """

    def __init__(self, program: _Program, start: int) -> None:
        self.program = program
        self.start = start
        kind, test = program.kind, program.test
        anchors = {test[state] for state, what in enumerate(kind) if what == _ASSERT}
        self.anchors = bool(anchors)
        self.words = bool(anchors & _WORD_TESTS)
        self.anchored = program._anchored(start)
        self.lock = threading.Lock()
        self.table = _Table()
        # The last long text's verdict, by the text's id, length and hash (no
        # reference kept): the check and the message of one call ask twice or more.
        self.last: tuple[int, int, int, bool] | None = None

    def __call__(self, text: str) -> bool:
        if len(text) < _REMEMBERED:
            return self.search(text)
        key = (id(text), len(text), hash(text))
        last = self.last
        if last is not None and last[:3] == key:
            return last[3]
        verdict = self.search(text)
        self.last = (*key, verdict)
        return verdict

    def search(self, text: str) -> bool:
        table = self.table
        found = self.program.closure((self.start,), self.seen(text, 0))
        with self.lock:
            state = self.number(table, found)
        if state < 0:
            return state == _MATCHED
        size = len(text)
        if not self.anchors:
            middle, where = size, None
        else:
            middle, where = (0 if self.words else max(0, size - 2)), _MIDDLE
        row = table.rows[state]
        for char in text if middle == size else text[:middle]:
            following = row.get(char)
            if following is None:
                table, following = self.move(table, state, char, where, keep=True)
            if following < 0:
                return following == _MATCHED
            state = following
            row = table.rows[state]
        for at in range(middle, size):
            char, seen = text[at], self.seen(text, at + 1)
            following = table.edges.get((state, char, seen))
            if following is None:
                table, following = self.move(table, state, char, seen, keep=False)
            if following < 0:
                return following == _MATCHED
            state = following
        return False

    def seen(self, text: str, at: int) -> _Seen | None:
        if not self.anchors:
            return None
        if not self.words and 0 < at < len(text) - 1:
            return _MIDDLE
        return _seen(text, at)

    def number(self, table: _Table, found: tuple[tuple[int, ...], bool]) -> int:
        """The DFA state of `found` in `table` (under the lock): `_MATCHED`, `_DEAD` or its number."""
        states, matched = found
        if matched:
            return _MATCHED
        if self.anchored and not states:
            return _DEAD
        ident = table.ids.get(states)
        if ident is None:
            ident = len(table.sets)
            table.ids[states] = ident
            table.sets.append(states)
            table.rows.append({})
        return ident

    def move(
        self, table: _Table, state: int, char: str, seen: _Seen | None, *, keep: bool
    ) -> tuple[_Table, int]:
        """The move from `state` on `char`, kept (in its row when `keep`), and the table it is in."""
        program = self.program
        test, out = program.test, program.out
        current = table.sets[state]
        stepped = [out[one] for one in current if test[one](char)]
        if not self.anchored:
            stepped.append(self.start)
        found = program.closure(tuple(stepped), seen)
        with self.lock:
            if table.kept >= _KEPT:  # a fresh table, which this search goes on in
                if self.table is table:
                    self.table = _Table()
                table = self.table
                state = self.number(table, (current, False))
            following = self.number(table, found)
            if keep:
                table.rows[state][char] = following
            else:
                table.edges[state, char, seen] = following
            table.kept += 1
        return table, following


_MIDDLE: Final = (False, False, False, False, False)
"""What anchors other than `\\b` and `\\B` see inside a text."""


def _seen(text: str, at: int) -> _Seen:
    end = len(text)
    return (
        at == 0,
        at == end,
        at == end - 1 and text[at] == "\n",
        at > 0 and _is_word(text[at - 1]),
        at < end and _is_word(text[at]),
    )


def _between(low: str, high: str) -> Callable[[str], bool]:
    return lambda char: low <= char <= high


def _anything(char: str) -> bool:
    return True


def _not_newline(char: str) -> bool:
    return char != "\n"


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


_CATEGORIES: Final[dict[str, Callable[[str], bool]]] = {
    "CATEGORY_DIGIT": str.isdecimal,
    "CATEGORY_NOT_DIGIT": lambda char: not char.isdecimal(),
    "CATEGORY_SPACE": str.isspace,
    "CATEGORY_NOT_SPACE": lambda char: not char.isspace(),
    "CATEGORY_WORD": _is_word,
    "CATEGORY_NOT_WORD": lambda char: not _is_word(char),
}


_EMPTY_NON_BOUNDARY: Final = sys.version_info >= (3, 14)
"""Whether `\\B` matches an empty text: `re` says no before Python 3.14."""

_POSITIONS: Final[dict[str, Callable[[_Seen], bool]]] = {
    "AT_BEGINNING": lambda seen: seen[0],
    "AT_BEGINNING_STRING": lambda seen: seen[0],
    "AT_END": lambda seen: seen[1] or seen[2],
    "AT_END_STRING": lambda seen: seen[1],
    "AT_BOUNDARY": lambda seen: seen[3] != seen[4],
    "AT_NON_BOUNDARY": lambda seen: (
        (not (seen[0] and seen[1]) or _EMPTY_NON_BOUNDARY) and seen[3] == seen[4]
    ),
}


_WORD_TESTS: Final = frozenset(
    {_POSITIONS["AT_BOUNDARY"], _POSITIONS["AT_NON_BOUNDARY"]}
)


def _position_test(code: str) -> Callable[[_Seen], bool]:
    test = _POSITIONS.get(code)
    if test is None:  # pragma: no cover  # the line anchors come only with MULTILINE
        msg = f"it uses {code}"
        raise PatternError(msg) from None
    return test


_NAMES: Final = {
    "ASSERT": "a lookahead or lookbehind",
    "ASSERT_NOT": "a negative lookahead or lookbehind",
    "GROUPREF": "a backreference",
    "GROUPREF_EXISTS": "a conditional group",
    "ATOMIC_GROUP": "an atomic group",
    "POSSESSIVE_REPEAT": "a possessive repeat",
}
