"""Record a run's tool calls, and replay them in tests without the tools' side effects.

`Recorder` and `Replayer` are middleware (`ToolSet.use`), so they work for
local tools and a mounted MCP server's tools alike, through every entry
point. A recording is a readable JSON file: each call's tool, its arguments
as canonical JSON, and its result (text, error flag, structured value and
content parts, bytes in base64).

    recorder = Recorder()
    tools.use(recorder)
    ...                          # run the agent against the real tools
    recorder.save("calls.json")

    replayer = Replayer.load("calls.json")
    tools.use(replayer)          # the tools are not called any more
    ...
    replayer.check()             # AssertionError naming each call it could not answer

A `Replayer` answers a call with the recorded result of the same tool and
arguments, in recorded order when the same call was made several times
(`mode="strict"`), or answers the calls in the order they were recorded
whatever their arguments (`mode="sequence"`). A call it cannot answer is an
error result naming the call, and `check()` fails with every such call.

With toolkit installed, pytest has a `toolkit_replay` fixture: call it with
a set; the test's recording (`recordings/<test name>.json` beside the test
file) is replayed when it exists and made when it does not (or when pytest
runs with `--toolkit-record`), and the test fails on a call the recording
does not have.
"""

from __future__ import annotations

import base64
import json
import pathlib
import threading
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any, Literal

from .core._exceptions import ToolkitError
from .run._context import Context
from .values._content import PART_TYPES, Part
from .values._results import ToolCall, ToolResult
from .values._scalars import b64

__all__ = ["Recorder", "RecordingError", "Replayer", "toolkit_replay"]

_FORMAT = 1
CallNext = Callable[[ToolCall], Any]


class RecordingError(ToolkitError, ValueError):
    """A recording that cannot be read: names the file, the entry and what is wrong."""


class Recorder:
    """Middleware that records every call and its result; `save` writes them.

    The tools still run: put it last (`use` it after the other middleware)
    to record what the tools answered, first to record what the model got.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.calls: list[dict[str, Any]] = []
        """The calls recorded so far, in the order they finished."""

    async def __call__(
        self, call: ToolCall, context: Context[Any], call_next: CallNext
    ) -> ToolResult:
        """Run the call on, and record it with its result."""
        result: ToolResult = await call_next(call)
        entry = {
            "tool": call.name,
            "arguments": _arguments(call.args),
            "result": _result_json(result),
        }
        with self._lock:
            self.calls.append(entry)
        return result

    def save(self, path: str | pathlib.Path) -> None:
        """Write the recording to `path` as indented JSON."""
        document = {"format": _FORMAT, "calls": self.calls}
        text = json.dumps(document, indent=2, ensure_ascii=False, sort_keys=True)
        pathlib.Path(path).write_text(text + "\n", encoding="utf-8")


class Replayer:
    """Middleware that answers calls from a recording; the tools are never called.

    Args:
        calls: The recorded calls (`Recorder.calls`, or a file's `calls`).
        mode: "strict" matches each call by tool and arguments; "sequence"
            answers the calls in recorded order.

    Raises:
        RecordingError: An entry is not a recorded call (names the entry and
            what is wrong with it).
    """

    def __init__(
        self,
        calls: list[dict[str, Any]],
        mode: Literal["strict", "sequence"] = "strict",
        *,
        source: str = "the recording",
    ) -> None:
        if mode not in ("strict", "sequence"):
            msg = f'mode={mode!r}: use "strict" or "sequence"'
            raise ValueError(msg)
        if not isinstance(calls, list):
            msg = f"{source}: its calls are {type(calls).__name__}, not a list"
            raise RecordingError(msg)
        for index, entry in enumerate(calls):
            problem = _problem(entry)
            if problem is not None:
                msg = f"{source}: call {index} {problem}"
                raise RecordingError(msg)
        self.mode = mode
        self.misses: list[str] = []
        """The calls it could not answer, each named with its arguments."""
        self._lock = threading.Lock()
        self._queue: deque[dict[str, Any]] = deque(calls)
        self._by_call: dict[str, deque[dict[str, Any]]] = {}
        for entry in calls:
            self._by_call.setdefault(
                _key(entry["tool"], entry["arguments"]), deque()
            ).append(entry)

    @classmethod
    def load(
        cls, path: str | pathlib.Path, mode: Literal["strict", "sequence"] = "strict"
    ) -> Replayer:
        """The replayer of a file that `Recorder.save` wrote.

        Raises:
            RecordingError: The file cannot be read, is not JSON, is not a
                recording of this format, or an entry is broken; one error
                naming the file, the entry and what is wrong.
        """
        try:
            text = pathlib.Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            msg = f"{path}: cannot be read ({error})"
            raise RecordingError(msg) from None
        try:
            document = json.loads(text)
        except (ValueError, RecursionError) as error:  # nested too deep to read
            msg = f"{path}: is not JSON ({error})"
            raise RecordingError(msg) from None
        if not isinstance(document, dict) or document.get("format") != _FORMAT:
            msg = f"{path} is not a toolkit recording (format {_FORMAT})"
            raise RecordingError(msg)
        if "calls" not in document:
            msg = f"{path}: has no 'calls'"
            raise RecordingError(msg)
        return cls(document["calls"], mode, source=str(path))

    async def __call__(
        self, call: ToolCall, context: Context[Any], call_next: CallNext
    ) -> ToolResult:
        """Answer the call from the recording (the tool is not called)."""
        arguments = _arguments(call.args)
        with self._lock:
            entry = self._next(call.name, arguments)
            if entry is None:
                shown = f"{call.name}({json.dumps(arguments, sort_keys=True, default=repr)})"
                self.misses.append(shown)
        if entry is None:
            return ToolResult.error(
                f"The recording has no answer for the call {shown}."
            )
        return _result_of(entry["result"])

    def _next(self, name: str, arguments: Any) -> dict[str, Any] | None:
        if self.mode == "sequence":
            if self._queue and self._queue[0]["tool"] == name:
                return self._queue.popleft()
            return None
        found = self._by_call.get(_key(name, arguments))
        return found.popleft() if found else None

    def check(self) -> None:
        """Fail if a call had no recorded answer.

        Raises:
            AssertionError: Names every call the recording could not answer.
        """
        if self.misses:
            msg = "The recording has no answer for: " + "; ".join(self.misses)
            raise AssertionError(msg)


# ---------------------------------------------------------------- the pytest fixture


def pytest_addoption(parser: Any) -> None:
    """`--toolkit-record`: make every `toolkit_replay` recording again."""
    parser.addoption(
        "--toolkit-record",
        action="store_true",
        help="record the tool calls of tests that use toolkit_replay again",
    )


def _toolkit_replay(request: Any) -> Iterator[Callable[..., None]]:
    """`toolkit_replay(tools, mode="strict")`: replay the test's recording into `tools`, or make it."""
    folder = pathlib.Path(request.node.path).parent / "recordings"
    path = folder / f"{request.node.name}.json"
    record = request.config.getoption("--toolkit-record") or not path.exists()
    used: list[Recorder | Replayer] = []

    def wire(tools: Any, mode: Literal["strict", "sequence"] = "strict") -> None:
        middleware: Recorder | Replayer = (
            Recorder() if record else Replayer.load(path, mode)
        )
        tools.use(middleware)
        used.append(middleware)

    yield wire
    for middleware in used:
        if isinstance(middleware, Replayer):
            middleware.check()
    recorders = [m for m in used if isinstance(m, Recorder)]
    if recorders:
        folder.mkdir(exist_ok=True)
        merged = Recorder()
        merged.calls = [entry for recorder in recorders for entry in recorder.calls]
        merged.save(path)


try:
    import pytest
except ImportError:  # outside pytest the recorder and replayer still work
    pass
else:
    toolkit_replay = pytest.fixture(name="toolkit_replay")(_toolkit_replay)


# ---------------------------------------------------------------- JSON forms


def _arguments(args: Any) -> Any:
    """The call's arguments as a JSON value (a JSON string decoded)."""
    if isinstance(args, (str, bytes, bytearray)):
        try:
            return json.loads(args)
        except ValueError:
            return (
                args
                if isinstance(args, str)
                else bytes(args).decode("utf-8", "replace")
            )
    return args if args is not None else {}


def _key(name: str, arguments: Any) -> str:
    return json.dumps(
        [name, arguments], sort_keys=True, separators=(",", ":"), default=repr
    )


def _result_json(result: ToolResult) -> dict[str, Any]:
    return {
        "text": result.text,
        "is_error": result.is_error,
        "structured": result.structured,
        "content": [_part_json(part) for part in result.content],
    }


def _part_json(part: Part) -> dict[str, Any]:
    fields: dict[str, Any] = {"type": type(part).__name__}
    for name in type(part).__match_args__:
        value = getattr(part, name)
        if isinstance(value, bytes):
            value = {"base64": b64(value)}
        fields[name] = value
    return fields


def _problem(entry: Any) -> str | None:
    """What is wrong with a recorded call, or None when a replay can answer with it."""
    if not isinstance(entry, dict):
        return f"is {type(entry).__name__}, not an object"
    for key in ("tool", "arguments", "result"):
        if key not in entry:
            return f"has no {key!r}"
    if not isinstance(entry["tool"], str):
        return f"has 'tool' {type(entry['tool']).__name__}, not a string"
    try:
        _key(entry["tool"], entry["arguments"])
    except (TypeError, ValueError, RecursionError) as error:
        return f"has 'arguments' that are not JSON ({error})"
    return _result_problem(entry["result"])


def _result_problem(result: Any) -> str | None:
    """What is wrong with a recorded result, or None."""
    if not isinstance(result, dict):
        return f"has 'result' {type(result).__name__}, not an object"
    if not isinstance(result.get("text"), str):
        return "has a 'result' whose 'text' is missing or not a string"
    if not isinstance(result.get("is_error"), bool):
        return "has a 'result' whose 'is_error' is missing or not true/false"
    content = result.get("content", [])
    if not isinstance(content, list):
        return "has a 'result' whose 'content' is not a list"
    for number, item in enumerate(content):
        if not isinstance(item, dict) or item.get("type") not in {
            kind.__name__ for kind in PART_TYPES
        }:
            return f"has content part {number} of no known type"
        try:
            _part_of(item)
        except Exception as error:  # the part's own checks, a bad base64
            return f"has content part {number} that cannot be read ({error})"
    return None


def _result_of(recorded: dict[str, Any]) -> ToolResult:
    parts = tuple(_part_of(item) for item in recorded.get("content", ()))
    return ToolResult(
        recorded["text"],
        bool(recorded["is_error"]),
        None,
        recorded.get("structured"),
        parts,
    )


def _part_of(item: dict[str, Any]) -> Part:
    kinds: dict[str, Any] = {kind.__name__: kind for kind in PART_TYPES}
    fields: dict[str, Any] = {
        name: base64.b64decode(value["base64"]) if isinstance(value, dict) else value
        for name, value in item.items()
        if name != "type"
    }
    part: Part = kinds[item["type"]](**fields)
    return part
