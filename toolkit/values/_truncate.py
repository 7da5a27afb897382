"""Shortening a result's text to `max_output_chars`, keeping what the model needs.

The head and the tail of the text are kept, each cut at a line break when one
is near, with a notice between them that says how much was cut. An error about
invalid arguments always keeps its first two lines whole (which tool, and the
first problem with its path), since they say what to fix; those two lines are
bounded in length, so the text exceeds the limit only when the limit is
shorter than them. Only the text is shortened: a result keeps its value in
`structured` (the whole text, when it had none), so nothing is lost to a
program that reads it.
"""

from __future__ import annotations

from typing import Final

from ._content import with_text
from ._results import ToolResult

__all__ = ["shorten", "truncated"]

_INVALID: Final = "Invalid arguments for tool "


def truncated(result: ToolResult, limit: int) -> ToolResult:
    """`result` with its text (and its text parts) shortened to `limit` characters."""
    text = result.text
    short = shorten(text, limit)
    structured = result.structured if result.structured is not None else text
    content = with_text(result.content, short) if result.content else ()
    return ToolResult(short, result.is_error, result.ui, structured, content)


def shorten(text: str, limit: int) -> str:
    """`text` in at most `limit` characters: head, a notice of what was cut, tail."""
    if len(text) <= limit:
        return text
    keep = _kept_prefix(text)
    notice = _notice(len(text), len(text))  # the longest it can be
    budget = max(limit - len(notice), 0)
    if keep >= budget:
        head, tail = keep, 0
    else:
        head = max(keep, budget * 2 // 3)
        tail = budget - head
        head = _snap_head(text, keep, head)
        tail = _snap_tail(text, tail)
    cut = len(text) - head - tail
    return text[:head] + _notice(cut, len(text)) + (text[-tail:] if tail else "")


def _notice(cut: int, total: int) -> str:
    return f"\n[... {cut:,} of {total:,} characters cut ...]\n"


def _kept_prefix(text: str) -> int:
    """The length of what must survive: an argument error's header and first problem."""
    if not text.startswith(_INVALID):
        return 0
    header = text.find("\n")
    if header < 0:
        return len(text)
    first = text.find("\n", header + 1)
    return len(text) if first < 0 else first


def _snap_head(text: str, keep: int, head: int) -> int:
    """End the head at the last line break in its second half, if there is one."""
    index = text.rfind("\n", max(keep, head // 2), head)
    return index if index > 0 else head


def _snap_tail(text: str, tail: int) -> int:
    """Start the tail after the first line break in its first half, if there is one."""
    if tail <= 0:
        return 0
    start = len(text) - tail
    index = text.find("\n", start, start + tail // 2)
    return len(text) - index - 1 if index >= 0 else tail
