"""Record and replay (`toolkit.testing`): local and mounted tools, strict and in order, the pytest fixture."""

from __future__ import annotations

import asyncio
import json
import pathlib
import subprocess
import sys
import textwrap
from typing import Any

import pytest

from tests.conftest import chat_message
from toolkit import Image, ToolCall, ToolResult, ToolSet, tool
from toolkit import mcp as mcp_provider
from toolkit.providers import anthropic, openai
from toolkit.testing import Recorder, Replayer

ROOT = pathlib.Path(__file__).parent.parent
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de"
    "0000000c49444154789c63f8cfc0000003010100c9fe92ef0000000049454e44ae426082"
)


def make_tools(calls: list[str]) -> ToolSet:
    @tool
    def weather(city: str) -> str:
        """Weather.

        Args:
            city: The city.
        """
        calls.append(city)
        return f"Sunny in {city}."

    @tool
    def chart(month: str) -> list[str | Image]:
        """A chart.

        Args:
            month: The month.
        """
        calls.append(month)
        return [f"Revenue in {month}:", Image.from_bytes(PNG)]

    @tool
    def total(values: list[int]) -> dict[str, int]:
        """Add up.

        Args:
            values: Numbers.
        """
        calls.append("total")
        if not values:
            raise ValueError("nothing to add")
        return {"total": sum(values)}

    return ToolSet([weather, chart, total])


MESSAGE = chat_message(
    ("c1", "weather", '{"city": "Paris"}'),
    ("c2", "chart", '{"month": "May"}'),
    ("c3", "total", '{"values": [1, 2]}'),
    ("c4", "total", '{"values": []}'),
)


def test_a_recorded_run_replays_byte_identically(tmp_path: pathlib.Path) -> None:
    calls: list[str] = []
    live = make_tools(calls)
    recorder = Recorder()
    live.use(recorder)
    recorded = asyncio.run(openai.handle(live, "agent-1", MESSAGE))
    recorder.save(tmp_path / "calls.json")
    assert len(calls) == 4
    saved = json.loads((tmp_path / "calls.json").read_text())
    assert sorted(
        entry["tool"] for entry in saved["calls"]
    ) == [  # in the order they finished
        "chart",
        "total",
        "total",
        "weather",
    ]

    calls.clear()
    replayed_tools = make_tools(calls)
    replayer = Replayer.load(tmp_path / "calls.json")
    replayed_tools.use(replayer)
    replayed = asyncio.run(openai.handle(replayed_tools, "agent-1", MESSAGE))
    assert calls == []  # no tool ran
    assert json.dumps(replayed, sort_keys=True) == json.dumps(recorded, sort_keys=True)
    replayer.check()


def test_strict_mode_names_a_call_it_has_not_recorded() -> None:
    calls: list[str] = []
    live = make_tools(calls)
    recorder = Recorder()
    live.use(recorder)
    live.execute("a", "1", "weather", {"city": "Paris"})
    replayer = Replayer(recorder.calls)
    offline = make_tools(calls)
    offline.use(replayer)
    assert (
        offline.execute("a", "2", "weather", {"city": "Paris"}).text
        == "Sunny in Paris."
    )
    miss = offline.execute("a", "3", "weather", {"city": "Rome"})
    assert miss.is_error
    assert (
        miss.text
        == 'The recording has no answer for the call weather({"city": "Rome"}).'
    )
    again = offline.execute("a", "4", "weather", {"city": "Paris"})  # used up
    assert again.is_error
    with pytest.raises(
        AssertionError,
        match=r'weather\(\{"city": "Rome"\}\); weather\(\{"city": "Paris"\}\)',
    ):
        replayer.check()
    assert calls == ["Paris"]


def test_sequence_mode_answers_in_order() -> None:
    recorded = [
        {
            "tool": "weather",
            "arguments": {"city": "Paris"},
            "result": {"text": "one", "is_error": False},
        },
        {
            "tool": "weather",
            "arguments": {"city": "Paris"},
            "result": {"text": "two", "is_error": False},
        },
    ]
    replayer = Replayer(recorded, mode="sequence")
    tools = make_tools([])
    tools.use(replayer)
    assert tools.execute("a", "1", "weather", {"city": "Oslo"}).text == "one"
    assert tools.execute("a", "2", "weather", {"city": "Lima"}).text == "two"
    assert tools.execute("a", "3", "weather", {"city": "Lima"}).is_error
    with pytest.raises(AssertionError, match="weather"):
        replayer.check()


def test_a_mounted_servers_tools_replay_without_the_server(
    tmp_path: pathlib.Path,
) -> None:
    """Recorded against `toolkit serve` over stdio; replayed into an empty set, with no server."""
    command = [
        sys.executable,
        "-m",
        "toolkit",
        "serve",
        str(ROOT / "tests" / "serve_tools.py"),
    ]
    calls = [
        ToolCall("1", "add", {"a": 2, "b": 3}),
        ToolCall("2", "add", {"a": 1, "b": 1}),
    ]

    async def record() -> list[ToolResult]:
        async with mcp_provider.connect(command) as remote:
            recorder = Recorder()
            remote.use(recorder)
            results = await remote.run("agent-1", calls)
            recorder.save(tmp_path / "remote.json")
            return results

    live = asyncio.run(asyncio.wait_for(record(), 60))
    offline = ToolSet()
    offline.use(Replayer.load(tmp_path / "remote.json"))
    replayed = asyncio.run(offline.run("agent-1", calls))
    assert [r.text for r in replayed] == [r.text for r in live] == ["5", "2"]
    assert [r.structured for r in replayed] == [r.structured for r in live]
    assert anthropic.results(calls, replayed) == anthropic.results(calls, live)


def test_a_file_that_is_not_a_recording() -> None:
    with pytest.raises(ValueError, match="not a toolkit recording"):
        Replayer.load(_write_json({"calls": []}))
    with pytest.raises(ValueError, match="mode"):
        Replayer([], mode="shuffle")  # type: ignore[arg-type]


def _write_json(value: Any) -> pathlib.Path:
    import tempfile

    handle = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)  # noqa: SIM115
    with handle:
        json.dump(value, handle)
    return pathlib.Path(handle.name)


def test_the_pytest_fixture_records_then_replays_then_fails_on_a_new_call(
    tmp_path: pathlib.Path,
) -> None:
    (tmp_path / "test_agent.py").write_text(
        textwrap.dedent(
            """
            import pathlib
            from toolkit import ToolSet, tool

            ARG = pathlib.Path(__file__).with_name("arg.txt").read_text()

            @tool
            def lookup(key: str) -> str:
                \"\"\"Look up.

                Args:
                    key: The key.
                \"\"\"
                with open(pathlib.Path(__file__).with_name("ran.txt"), "a") as out:
                    out.write(key + "\\n")
                return key.upper()

            def test_agent(toolkit_replay):
                tools = ToolSet([lookup])
                toolkit_replay(tools)
                assert tools.execute("a", "1", "lookup", {"key": ARG}).text == ARG.upper()
            """
        )
    )

    def pytest_run(arg: str) -> subprocess.CompletedProcess[str]:
        (tmp_path / "arg.txt").write_text(arg)
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:randomly",
                "-p",
                "no:cacheprovider",
                "test_agent.py",
            ],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )

    first = pytest_run("abc")
    assert first.returncode == 0, first.stdout
    assert (tmp_path / "recordings" / "test_agent.json").exists()
    assert (tmp_path / "ran.txt").read_text() == "abc\n"
    second = pytest_run("abc")
    assert second.returncode == 0, second.stdout
    assert (
        tmp_path / "ran.txt"
    ).read_text() == "abc\n"  # replayed: the tool did not run
    third = pytest_run("xyz")
    assert third.returncode != 0
    assert 'lookup({"key": "xyz"})' in third.stdout
