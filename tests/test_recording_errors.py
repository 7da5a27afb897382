"""A recording that cannot be read fails at load with one RecordingError naming the file, the entry and the fault."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest

from toolkit import ToolkitError
from toolkit.testing import RecordingError, Replayer

GOOD = {
    "tool": "add",
    "arguments": {"a": 1},
    "result": {"text": "2", "is_error": False},
}


def write(tmp_path: pathlib.Path, document: Any) -> pathlib.Path:
    path = tmp_path / "calls.json"
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    return path


@pytest.mark.parametrize(
    ("document", "words"),
    [
        ('{"format": 1, "calls": [', "is not JSON"),
        (
            '{"format": 1, "calls": [' + "[" * 100_000 + "]" * 100_000 + "]}",
            "is not JSON",
        ),
        ("[1, 2]", "is not a toolkit recording"),
        ({"format": 1}, "has no 'calls'"),
        ({"format": 1, "calls": {}}, "not a list"),
        ({"format": 1, "calls": [GOOD, 7]}, "call 1 is int"),
        (
            {"format": 1, "calls": [{"tool": "add", "arguments": {}}]},
            "call 0 has no 'result'",
        ),
        ({"format": 1, "calls": [{**GOOD, "tool": 3}]}, "call 0 has 'tool' int"),
        ({"format": 1, "calls": [{**GOOD, "result": "2"}]}, "call 0 has 'result' str"),
        ({"format": 1, "calls": [{**GOOD, "result": {"is_error": False}}]}, "'text'"),
        ({"format": 1, "calls": [{**GOOD, "result": {"text": "2"}}]}, "'is_error'"),
        (
            {
                "format": 1,
                "calls": [
                    {
                        **GOOD,
                        "result": {
                            "text": "",
                            "is_error": False,
                            "content": [{"type": "Nope"}],
                        },
                    }
                ],
            },
            "content part 0 of no known type",
        ),
        (
            {
                "format": 1,
                "calls": [
                    {
                        **GOOD,
                        "result": {
                            "text": "",
                            "is_error": False,
                            "content": [{"type": "Image", "data": {"base64": "!!"}}],
                        },
                    }
                ],
            },
            "content part 0 that cannot be read",
        ),
    ],
)
def test_a_broken_recording_fails_at_load_naming_the_file_and_the_entry(
    tmp_path: pathlib.Path, document: Any, words: str
) -> None:
    path = write(tmp_path, document)
    with pytest.raises(RecordingError) as raised:
        Replayer.load(path)
    assert isinstance(raised.value, ToolkitError)
    assert str(path) in str(raised.value)
    assert words in str(raised.value)


def test_a_missing_file_is_a_recording_error(tmp_path: pathlib.Path) -> None:
    with pytest.raises(RecordingError, match="cannot be read"):
        Replayer.load(tmp_path / "none.json")


def test_broken_calls_given_directly_are_refused() -> None:
    with pytest.raises(RecordingError, match="call 0 has no 'tool'"):
        Replayer([{"arguments": {}, "result": {"text": "", "is_error": False}}])


def test_a_good_recording_loads(tmp_path: pathlib.Path) -> None:
    replayer = Replayer.load(write(tmp_path, {"format": 1, "calls": [GOOD]}))
    replayer.check()
