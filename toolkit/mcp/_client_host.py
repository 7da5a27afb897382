"""What an MCP server asks of the client, handed to the program's host.

A server may, during a call, report progress, send log records, ask the
client's model for a completion (`sampling/createMessage`), ask the user a
question (`elicitation/create`) or ask for the client's roots
(`roots/list`). `mcp.connect(..., host=...)` hands these to the host's
methods (each optional, sync or async): `progress`, `log`, `sample`,
`elicit`, and `roots` (a list of URIs, or `{"uri", "name"}` dicts).

The client declares a capability only for what the host can do: without a
host, or without its `sample` method, the server learns that this client
cannot sample, and so on. Log records without a host `log` method, and
whatever goes wrong in the host, go to the `toolkit` logger.

Each method gets the `Context` of the call the request belongs to: the
call that is running in the task (or, over stdio, the only call in
flight), else a `Context` with empty `call_id` and `tool_name`.
"""

from __future__ import annotations

import contextvars
from typing import Any

from toolkit.core._exceptions import ToolError
from toolkit.core._log import log_failure, logger
from toolkit.run._context import Context
from toolkit.run._host import PYTHON_LEVELS, awaited, method_of
from toolkit.values._results import error_text, safe_text

__all__ = ["HostBridge"]

_CALL: contextvars.ContextVar[Context[Any] | None] = contextvars.ContextVar(
    "toolkit_mcp_call", default=None
)


class HostBridge:
    """The SDK client's callbacks for one server, calling the host's methods."""

    def __init__(self, host: Any, label: str) -> None:
        self.host = host
        self.label = label
        self._in_flight: dict[int, Context[Any]] = {}

    def callbacks(self) -> dict[str, Any]:
        """The `Client` arguments: a callback for each thing the host can do."""
        found: dict[str, Any] = {"logging_callback": self._log}
        if method_of(self.host, "log") is not None:
            found["log_level"] = "debug"  # modern servers send records only when asked
        if method_of(self.host, "sample") is not None:
            found["sampling_callback"] = self._sample
        if method_of(self.host, "elicit") is not None:
            found["elicitation_callback"] = self._elicit
        if method_of(self.host, "roots") is not None:
            found["list_roots_callback"] = self._roots
        return found

    # ------------------------------------------------------------ calls

    def calling(self, context: Context[Any]) -> _Calling:
        """Mark `context`'s call as running while the returned context manager is open."""
        return _Calling(self, context)

    def progress_callback(self, context: Context[Any]) -> Any:
        """The `tools/call` progress callback for one call, or None without a host `progress`."""
        method = method_of(self.host, "progress")
        if method is None:
            return None

        async def progress(
            value: float, total: float | None, message: str | None
        ) -> None:
            await awaited(method(context, value, total, message))

        return progress

    def _context(self) -> Context[Any]:
        current = _CALL.get()
        if current is not None:
            return current
        if len(self._in_flight) == 1:
            return next(iter(self._in_flight.values()))
        return Context("mcp", "", "")

    # ------------------------------------------------------------ callbacks

    async def _log(self, params: Any) -> None:
        level = str(params.level)
        message, extra = _record(params.data)
        if params.logger:
            extra.setdefault("logger", params.logger)
        method = method_of(self.host, "log")
        if method is None:
            logger().log(
                PYTHON_LEVELS.get(level, PYTHON_LEVELS["info"]),
                "MCP server %r: %s",
                self.label,
                message,
            )
            return
        try:
            await awaited(method(self._context(), level, message, extra))
        except Exception as error:  # the host's bug must not end the connection
            log_failure("The host's log failed", error=error)

    async def _sample(self, context: Any, params: Any) -> Any:
        import mcp.types as types

        method = method_of(self.host, "sample")
        assert method is not None  # declared only with it
        messages = [
            {"role": str(message.role), "content": _text_of(message.content)}
            for message in params.messages
        ]
        try:
            text = await awaited(
                method(
                    self._context(),
                    messages,
                    system=params.system_prompt,
                    max_tokens=params.max_tokens,
                    temperature=params.temperature,
                )
            )
        except Exception as error:  # the host's refusal or failure: the server's error
            return _refusal(types, "sample", error)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=str(text)),
            model="host",
            stop_reason="endTurn",
        )

    async def _elicit(self, context: Any, params: Any) -> Any:
        import mcp.types as types

        method = method_of(self.host, "elicit")
        assert method is not None  # declared only with it
        schema = getattr(params, "requested_schema", None)
        if (
            schema is None
        ):  # a URL to open: this host answers questions, it opens no pages
            return types.ElicitResult(action="decline")
        try:
            answer = await awaited(method(self._context(), params.message, schema))
        except Exception as error:  # the host's refusal or failure: the server's error
            return _refusal(types, "elicit", error)
        action = getattr(answer, "action", None)
        if action not in ("accept", "decline", "cancel"):
            wrong = TypeError(
                f"the host's elicit returned {type(answer).__name__}, not an Elicited"
            )
            return _refusal(types, "elicit", wrong)
        data = getattr(answer, "data", None)
        if action == "accept":
            return types.ElicitResult(action="accept", content=dict(data or {}))
        return types.ElicitResult(action=action)

    async def _roots(self, context: Any) -> Any:
        import mcp.types as types

        method = method_of(self.host, "roots")
        assert method is not None  # declared only with it
        try:
            found = await awaited(method(self._context()))
            roots = [
                types.Root.model_validate(
                    {"uri": item} if isinstance(item, str) else item
                )
                for item in found
            ]
        except Exception as error:  # the host's refusal or failure: the server's error
            return _refusal(types, "roots", error)
        return types.ListRootsResult(roots=roots)


class _Calling:
    """While open, requests from the server belong to this call."""

    def __init__(self, bridge: HostBridge, context: Context[Any]) -> None:
        self._bridge = bridge
        self._context = context
        self._token: contextvars.Token[Context[Any] | None] | None = None

    def __enter__(self) -> None:
        self._token = _CALL.set(self._context)
        self._bridge._in_flight[id(self)] = self._context

    def __exit__(self, *exc: object) -> None:
        self._bridge._in_flight.pop(id(self), None)
        if self._token is not None:
            _CALL.reset(self._token)


def _text_of(content: Any) -> str:
    """The text of a sampling message's content; other blocks are named, not sent."""
    blocks = content if isinstance(content, list) else [content]
    return "\n".join(_block_text(block) for block in blocks)


def _block_text(block: Any) -> str:
    text = getattr(block, "text", None)
    if isinstance(text, str):
        return text
    return f"[{getattr(block, 'type', 'content')} content]"


def _refusal(types: Any, what: str, error: Exception) -> Any:
    """The error answer to the server: a `ToolError`'s text as is, else the exception's."""
    if isinstance(error, ToolError):
        message = safe_text(error) or error_text(error)
    else:
        log_failure("The host's %s failed", what, error=error)
        message = error_text(error)
    return types.ErrorData(code=types.INTERNAL_ERROR, message=message)


def _record(data: Any) -> tuple[str, dict[str, Any]]:
    """A log record's `data` as a message and the rest.

    A string is the message; an object's `"message"` (as toolkit's server
    sends `Context.log`) is, with its other fields the data; any other
    value is its JSON text.
    """
    if isinstance(data, str):
        return data, {}
    if isinstance(data, dict) and isinstance(data.get("message"), str):
        rest = {key: value for key, value in data.items() if key != "message"}
        return data["message"], rest
    return _one_line(data), {}


def _one_line(data: Any) -> str:
    """A log record's data as one line."""
    from toolkit.values._json import encode, to_jsonable

    try:
        return encode(to_jsonable(data))
    except Exception:  # not JSON: its repr will do for a log line
        return repr(data)
