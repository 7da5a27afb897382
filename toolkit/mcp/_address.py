"""Where an MCP server is: a command to start over stdio, or the URL of a streamable HTTP server."""

from __future__ import annotations

import contextlib
import shlex
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any, Final

from toolkit.schema._preview import preview

from ._definitions import FALLBACK_VERSION, adopted, usable_tools

__all__ = ["BACKOFF", "Backoff", "ServerAddress", "Watched"]


class Backoff:
    """How a broken connection is opened again.

    Attributes:
        tries: Connection attempts in one round.
        first_wait: Seconds before the second attempt of a round; doubles.
        round_wait: Seconds after a failed round during which calls fail at
            once without trying; doubles after each failed round.
        max_round_wait: The longest wait between rounds.
        connect_seconds: How long one attempt may take (a server started
            with `uvx` or `npx` may install itself first).
    """

    __slots__ = (
        "connect_seconds",
        "first_wait",
        "max_round_wait",
        "round_wait",
        "tries",
    )

    def __init__(
        self,
        *,
        tries: int = 3,
        first_wait: float = 0.25,
        round_wait: float = 1.0,
        max_round_wait: float = 30.0,
        connect_seconds: float = 60.0,
    ) -> None:
        self.tries = tries
        self.first_wait = first_wait
        self.round_wait = round_wait
        self.max_round_wait = max_round_wait
        self.connect_seconds = connect_seconds


BACKOFF = Backoff()
"""The policy every connection follows (tests shorten its waits)."""


class ServerAddress:
    """Where the server is and how to reach it; each connection makes a new transport."""

    def __init__(
        self,
        *,
        label: str,
        argv: list[str] | None = None,
        url: str | None = None,
        headers: Mapping[str, str] | None = None,
        auth: Any = None,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
    ) -> None:
        self.label = label
        self.argv = argv
        self.url = url
        self.headers = dict(headers) if headers is not None else None
        self.auth = auth
        self.env = dict(env) if env is not None else None
        self.cwd = cwd

    @classmethod
    def of(
        cls,
        target: str | Sequence[str],
        *,
        headers: Mapping[str, str] | None,
        auth: Any,
        env: Mapping[str, str] | None,
        cwd: str | None,
    ) -> ServerAddress:
        if isinstance(target, str) and target.startswith(("http://", "https://")):
            if env is not None or cwd is not None:
                msg = (
                    f"env and cwd apply to a server started over stdio, not to {target}"
                )
                raise ValueError(msg)
            return cls(label=_shown_url(target), url=target, headers=headers, auth=auth)
        argv = _argv(target)
        if headers is not None or auth is not None:
            msg = f"headers and auth apply to a server over HTTP, not to the command {shlex.join(argv)!r}"
            raise ValueError(msg)
        return cls(label=shlex.join(argv), argv=argv, env=env, cwd=cwd)

    @contextlib.asynccontextmanager
    async def transport(self, on_end: Callable[[], None]) -> AsyncIterator[Any]:
        """The SDK transport's streams, the read side watched for its end."""
        async with contextlib.AsyncExitStack() as stack:
            if self.url is not None:
                import httpx2
                from mcp.client.streamable_http import streamable_http_client

                # The SDK's own client's timeouts: a server may hold a
                # response stream open for long, so reading waits 5 minutes.
                timeout = httpx2.Timeout(30.0, read=300.0)
                http = await stack.enter_async_context(
                    httpx2.AsyncClient(
                        headers=self.headers, auth=self.auth, timeout=timeout
                    )
                )
                streams = streamable_http_client(self.url, http_client=http)
            else:
                from mcp.client.stdio import StdioServerParameters, stdio_client

                assert self.argv is not None  # a target is a URL or a command
                command, *args = self.argv
                params = StdioServerParameters(
                    command=command, args=args, env=self.env, cwd=self.cwd
                )
                _say_when_stdout_is_not_mcp()
                streams = stdio_client(params)
            read, write = await stack.enter_async_context(streams)
            yield Watched(read, on_end, self.label), write


_NOT_MCP: Final = (
    "The MCP server's stdout is not MCP: it wrote %s, which is not a JSON-RPC "
    "message (a stdio server writes only MCP messages to stdout; its logs go to stderr)"
)


def _say_when_stdout_is_not_mcp() -> None:
    """One line, not the SDK's traceback, for a stdio server's stdout line that is not JSON-RPC.

    The SDK logs that line's parse failure with its traceback on its
    `mcp.client.stdio` logger, which Python prints when the application
    configured no logging: a server that prints a banner looks like a crash.
    The SDK still skips the line; a filter added once words the record.
    """
    import logging

    found = logging.getLogger("mcp.client.stdio")
    if _not_mcp not in found.filters:
        found.addFilter(_not_mcp)


def _not_mcp(record: Any) -> bool:
    error = record.exc_info[1] if record.exc_info else None
    if isinstance(error, ValueError):  # the line is not JSON-RPC (or not UTF-8)
        listed = getattr(
            error, "errors", None
        )  # pydantic's ValidationError has the line
        try:
            wrote = preview(listed()[0]["input"]) if listed else "a line"
        except Exception:  # not the error of a line
            wrote = "a line"
        record.msg, record.args = _NOT_MCP, (wrote,)
        record.exc_info = record.exc_text = None
    return True


def _argv(target: str | Sequence[str]) -> list[str]:
    if isinstance(target, str):
        try:
            argv = shlex.split(target)
        except ValueError as error:
            msg = f"Cannot split the command line {target!r}: {error}"
            raise ValueError(msg) from None
    elif isinstance(target, Sequence) and all(isinstance(arg, str) for arg in target):
        argv = list(target)
    else:
        msg = f"An MCP server is a command line, a list of arguments or an http(s):// URL; got {target!r}"
        raise ValueError(msg)
    if not argv:
        msg = "The command that starts the MCP server is empty"
        raise ValueError(msg)
    return argv


def _shown_url(url: str) -> str:
    """The URL without user name and password, for messages."""
    scheme, _, rest = url.partition("://")
    authority, slash, path = rest.partition("/")
    return f"{scheme}://{authority.rpartition('@')[2]}{slash}{path}"


class Watched:
    """The transport's read stream, telling when it ends: the server is gone.

    The SDK notices the end only when a request fails; knowing it at once
    lets the next call connect again instead of failing first. It also
    leaves out of a `tools/list` result each tool that the SDK would refuse
    (`usable_tools`): the SDK checks the result as a whole, so that one bad
    definition would make every tool of the server unusable.
    """

    def __init__(self, inner: Any, on_end: Callable[[], None], label: str) -> None:
        self._inner = inner
        self._on_end = on_end
        self._label = label
        self._version = FALLBACK_VERSION

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def __aenter__(self) -> Watched:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> Any:
        return await self._inner.__aexit__(*exc)

    def __aiter__(self) -> Watched:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return self._read(await self._inner.receive())
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            self._on_end()
            raise StopAsyncIteration from None

    async def receive(self) -> Any:
        import anyio

        try:
            return self._read(await self._inner.receive())
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            self._on_end()
            raise

    def _read(self, item: Any) -> Any:
        result = getattr(getattr(item, "message", None), "result", None)
        if isinstance(result, dict):
            version = result.get("protocolVersion")
            if isinstance(version, str):  # the initialize handshake's answer
                self._version = version
            supported = result.get("supportedVersions")
            if isinstance(supported, list):  # server/discover's (2026-07-28 on)
                self._version = adopted(supported, self._version)
            tools = result.get("tools")
            if isinstance(tools, list):
                result["tools"] = usable_tools(result, self._version, self._label)
        return item
