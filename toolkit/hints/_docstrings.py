"""Docstrings → a tool description and per-parameter descriptions.

The style (Google, NumPy, reST, Epydoc) is detected with a few regular
expressions before `docstring_parser` runs, which is several times cheaper
than letting it try every style. The docstring is first split into
*described* sections (parameters, returns, raises), which the parser reads,
and everything else (summary, long description and sections such as Notes or
Examples), which stays in the tool description word for word:
`docstring_parser` silently drops a Google section it does not know that
follows `Args:`.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable
from typing import Any, Final, Literal

from toolkit.core._record import Record

__all__ = ["DOCSTRING_STYLES", "Docstring", "DocstringStyle", "parse_docstring"]

DocstringStyle = Literal["google", "numpy", "rest", "epydoc"]
DOCSTRING_STYLES: Final = ("google", "numpy", "rest", "epydoc")

# Sections whose content the parser turns into data, exactly as docstring_parser
# names them (case included); every other section stays in the description, so
# that nothing the parser would skip is lost.
_GOOGLE_DESCRIBED: Final = frozenset(
    {
        "Arguments",
        "Args",
        "Parameters",
        "Params",
        "Raises",
        "Exceptions",
        "Except",
        "Attributes",
        "Returns",
        "Yields",
    }
)
_NUMPY_DESCRIBED: Final = frozenset(
    {
        "Parameters",
        "Params",
        "Arguments",
        "Args",
        "Other Parameters",
        "Other Params",
        "Other Arguments",
        "Other Args",
        "Receives",
        "Receive",
        "Raises",
        "Raise",
        "Warns",
        "Warn",
        "Attributes",
        "Attribute",
        "Returns",
        "Return",
        "Yields",
        "Yield",
    }
)
_GOOGLE_HEADER: Final = re.compile(r"^([A-Za-z][A-Za-z ]*):\s*$")
_NUMPY_UNDERLINE: Final = re.compile(r"^\s*-{3,}\s*$")
_REST_FIELD: Final = re.compile(
    r"^:(param|parameter|arg|argument|key|keyword|type|returns?|rtype|raises?|except|exception|var|ivar|cvar)\b"
)
_EPYDOC_FIELD: Final = re.compile(
    r"^@(param|type|keyword|kwtype|returns?|rtype|raises?|ivar|var)\b"
)
_NUMPY_HINT: Final = re.compile(r"^[A-Za-z][A-Za-z ]*\n\s*-{3,}\s*$", re.MULTILINE)
_GOOGLE_HINT: Final = re.compile(
    r"^(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Attributes|Returns?|Yields?|Raises|Exceptions?):\s*$",
    re.MULTILINE,
)
_REST_HINT: Final = re.compile(
    r"^:(param|parameter|arg|argument|type|returns?|rtype|raises?)\b", re.MULTILINE
)
_EPYDOC_HINT: Final = re.compile(
    r"^@(param|type|returns?|rtype|raises?)\b", re.MULTILINE
)


class Docstring(Record):
    """What a docstring says about a function or a class.

    Attributes:
        description: Summary and long description, with every section that
            does not describe parameters, returns or raises.
        params: Parameter (or attribute) name → its description, in order.
        returns: The text of the Returns section, if any.
        unread: The parts of the described sections that the parser could
            not read, word for word; they are in `description` too.
    """

    __match_args__ = ("description", "params", "returns", "unread")
    __slots__ = ("description", "params", "returns", "unread")
    description: str
    params: dict[str, str]
    returns: str | None
    unread: tuple[str, ...]

    def __init__(
        self,
        *,
        description: str = "",
        params: dict[str, str] | None = None,
        returns: str | None = None,
        unread: tuple[str, ...] = (),
    ) -> None:
        object.__setattr__(self, "description", description)
        object.__setattr__(self, "params", {} if params is None else params)
        object.__setattr__(self, "returns", returns)
        object.__setattr__(self, "unread", unread)


_EMPTY: Final = Docstring()


def detect_style(text: str) -> DocstringStyle | None:
    """Return the style of a cleaned docstring, or None when it has no sections."""
    if _NUMPY_HINT.search(text):
        return "numpy"
    if _GOOGLE_HINT.search(text):
        return "google"
    if _REST_HINT.search(text):
        return "rest"
    if _EPYDOC_HINT.search(text):
        return "epydoc"
    return None


@functools.lru_cache(maxsize=1024)
def parse_docstring(
    doc: str | None, *, style: DocstringStyle | None = None
) -> Docstring:
    """Parse `doc` in the given style, or in the style it is detected to have.

    Read once per text and style: a function defined anew for each agent
    or request has the same docstring each time, so its reading is kept
    (the result is shared: never change it).

    Args:
        doc: The raw docstring (`func.__doc__`); None gives an empty result.
        style: One of "google", "numpy", "rest", "epydoc"; None detects it.

    Returns:
        The description, the parameter descriptions and the Returns text.

    A part that is not in the style (an entry without a colon, a section
    the parser refuses) never fails: what was read is read, and the rest
    stays in the description and in `unread`.
    """
    if not doc:
        return _EMPTY
    lines = _clean(doc)
    text = "\n".join(lines)
    style = style or detect_style(text)
    if style is None:
        return Docstring(description=text.strip())
    described, kept = _split_sections(lines, style)
    if not described:
        return Docstring(description=text.strip())
    return _read_described("\n".join(described), style, _join(kept))


def _clean(doc: str) -> list[str]:
    """The lines of `inspect.cleandoc(doc)`, except for a docstring that opens with a Google header.

    When the first line is `Args:`, cleandoc takes the margin from the
    parameter lines and leaves them flush with the header, where no parser can
    read them; they are indented back under their header.
    """
    lines = inspect.cleandoc(doc).split("\n")
    if (
        not lines
        or not _GOOGLE_HEADER.match(lines[0])
        or any(line[:1].isspace() for line in lines[1:])
    ):
        return lines
    return [
        lines[0],
        *(line if _GOOGLE_HEADER.match(line) else f"    {line}" for line in lines[1:]),
    ]


def _split_sections(
    lines: list[str], style: DocstringStyle
) -> tuple[list[str], list[str]]:
    """Split lines into (described sections, everything else)."""
    if style == "numpy":
        return _split_numpy(lines)
    starts: dict[str, Callable[[str], object]] = {
        "google": _google_described,
        "rest": _REST_FIELD.match,
        "epydoc": _EPYDOC_FIELD.match,
    }
    return _split_flush(lines, starts[style])


def _google_described(line: str) -> bool:
    header = _GOOGLE_HEADER.match(line)
    return header is not None and header[1] in _GOOGLE_DESCRIBED


def _split_numpy(lines: list[str]) -> tuple[list[str], list[str]]:
    described: list[str] = []
    kept: list[str] = []
    current = kept
    for index, line in enumerate(lines):
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if line.strip() and _NUMPY_UNDERLINE.match(following):
            is_described = line.strip() in _NUMPY_DESCRIBED
            current = described if is_described else kept
        current.append(line)
    return described, kept


def _split_flush(
    lines: list[str], starts: Callable[[str], object]
) -> tuple[list[str], list[str]]:
    """Google, ReST and Epydoc: a flush line starts a part, described when `starts(line)`.

    The part runs on over the indented lines below it (a Google section's
    entries, a field's continuation lines).
    """
    described: list[str] = []
    kept: list[str] = []
    current = kept
    for line in lines:
        if line and not line[0].isspace():
            current = described if starts(line) else kept
        current.append(line)
    return described, kept


def _read_described(text: str, style: DocstringStyle, description: str) -> Docstring:
    parsed = _parsed(text, style)
    if parsed is None:  # some part is not in the style: read the others
        return _read_in_parts(text.split("\n"), style, description)
    params, returns = _read(parsed)
    return Docstring(description=description, params=params, returns=returns)


def _parsed(text: str, style: DocstringStyle) -> Any:
    """What `docstring_parser` reads of `text` in `style`, or None when it cannot read it."""
    try:
        # A placeholder summary: the parser misreads a text that opens with a section.
        return _parsers()[style](f"-\n\n{text}")
    except Exception:  # ParseError, or a parser bug on odd text: not read
        return None


@functools.cache
def _parsers() -> dict[str, Callable[[str], Any]]:
    """`docstring_parser`'s parser of each style, made once (parsing changes none of them)."""
    from docstring_parser import epydoc, google, numpydoc, rest

    return {
        "google": google.GoogleParser().parse,
        "numpy": numpydoc.NumpydocParser().parse,
        "rest": rest.parse,
        "epydoc": epydoc.parse,
    }


def _read(parsed: Any) -> tuple[dict[str, str], str | None]:
    params = {
        item.arg_name.lstrip("*"): (item.description or "").strip()
        for item in parsed.params
    }
    returns = parsed.returns.description if parsed.returns else None
    return params, (returns or "").strip() or None


def _read_in_parts(
    lines: list[str], style: DocstringStyle, description: str
) -> Docstring:
    """Each section, then each entry of a section, read alone; what cannot be read stays in the description.

    A section that says `None` (`Args:` over `None`) or nothing documents no
    entries. What is left unread is in `unread`, for the logger and lint.
    """
    params: dict[str, str] = {}
    returns: str | None = None
    unread: list[str] = []
    for header, body in _sections(lines, style):
        entries = [line for line in body if line.strip()]
        if not entries or (
            len(entries) == 1 and entries[0].strip().rstrip(".") in _NOTHING
        ):
            continue
        for part in _entries(header, body, style):
            parsed = _parsed("\n".join(part), style)
            if parsed is None:
                unread.append(_join(part))
                continue
            found, said = _read(parsed)
            params.update(found)
            returns = returns or said
    kept = "\n\n".join(item for item in (description, *unread) if item)
    return Docstring(
        description=kept, params=params, returns=returns, unread=tuple(unread)
    )


_NOTHING: Final = frozenset({"None", "none", "-", "N/A", "n/a"})


def _sections(
    lines: list[str], style: DocstringStyle
) -> list[tuple[list[str], list[str]]]:
    """(header lines, body lines) of each described section or field, in order."""
    found: list[tuple[list[str], list[str]]] = []
    underline = False
    for index, line in enumerate(lines):
        if underline:  # a NumPy header's underline, in the header already
            underline = False
            continue
        following = lines[index + 1] if index + 1 < len(lines) else ""
        flush = bool(line) and not line[0].isspace()
        if style == "numpy" and line.strip() and _NUMPY_UNDERLINE.match(following):
            found.append(([line, following], []))
            underline = True
        elif style == "google" and flush:
            found.append(([line], []))
        elif (style != "numpy" and flush) or not found:  # a field: its line is its text
            found.append(([], [line]))
        else:
            found[-1][1].append(line)
    return found


def _entries(
    header: list[str], body: list[str], style: DocstringStyle
) -> list[list[str]]:
    """The section whole when it reads, else each of its entries under its header."""
    whole = [*header, *body]
    if _parsed("\n".join(whole), style) is not None or not header:
        return [whole]
    filled = [line for line in body if line.strip()]
    margin = min(len(line) - len(line.lstrip()) for line in filled)
    parts: list[list[str]] = []
    for line in body:
        indent = len(line) - len(line.lstrip())
        if line.strip() and (indent == margin or not parts):
            parts.append([*header, line])
        elif parts:
            parts[-1].append(line)
    return parts


def _join(lines: list[str]) -> str:
    text = "\n".join(line.rstrip() for line in lines).strip()
    return re.sub(r"\n{3,}", "\n\n", text) if "\n\n\n" in text else text
