"""The MCP server as a host: what a tool's `Context` asks becomes MCP messages.

One `McpHost` serves one `tools/call` request:

- progress is `notifications/progress` for the request's `progressToken`
  (nothing is sent when the client gave none);
- a log record is `notifications/message` (the tool's name as `logger`),
  at or above the level the client set with `logging/setLevel` (every level
  until it does); on 2026-07-28 connections, at or above the level the
  request opted in to in its `_meta` (nothing without it);
- `sample` is `sampling/createMessage`, `elicit` is `elicitation/create`
  (a form) and `roots` is `roots/list`, for a client that declared the
  capability; for one that did not, the tool gets a `ToolError` that says
  so, and a 2026-07-28 client the error -32021 (`missing_capability`).

Up to protocol 2025-11-25 the server sends those two requests back over the
session and waits. From 2026-07-28 a server cannot start requests: the tool
stops at its first question (`InputRequired`), the call answers with an
`InputRequiredResult` holding the question, and the client calls again with
the answer; the tool then runs again from the start, and each question it
asks again is answered from the responses. The answers given so far travel
in the result's `request_state`, so any server process can take the next
round. They are the client's own answers: a client that changes them only
answers differently, and the server seals the state (`_modern`), so a
changed one is refused before the tool runs. A question is matched to its
answer by the `key` the tool gave it, else by a digest of the question, so
an answer is never taken for a different question.
"""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING, Any, Final

from toolkit.core._exceptions import ToolError
from toolkit.policies._policies import digest_of
from toolkit.providers.mcp import dump
from toolkit.run._host import LEVELS, Elicited, InputRequired, cannot
from toolkit.values._json import to_jsonable

if TYPE_CHECKING:
    from toolkit.run._context import Context

__all__ = ["McpHost", "on_set_level"]

_LEVEL_KEY: Final = "toolkit.log_level"
"""Where a connection's `logging/setLevel` level is kept, in its state (`connection_state`)."""

_STATE_VERSION: Final = 1


def connection_state(ctx: Any) -> dict[str, Any] | None:
    """What the server keeps for the connection of a request (its log level, its loaded tools), if anything.

    Over HTTP a connection is a session, and the app keeps its state
    (`_sessions.Session`); a request without a session (stateless) is a
    connection of its own, which no later request reads. Elsewhere (stdio,
    a client in the same process) the SDK's `Server.run` serves one
    connection, and the state its lifespan made for that run is the
    connection's.
    """
    if ctx.request is not None:
        from ._sessions import current_session

        session = current_session.get()
        return session.state if session is not None else None
    state = ctx.lifespan_context
    return state if isinstance(state, dict) else None


async def on_set_level(ctx: Any, params: Any) -> Any:
    """The `logging/setLevel` handler: keep the level for the connection's later log records."""
    import mcp.types as types

    state = connection_state(ctx)
    if state is not None:
        state[_LEVEL_KEY] = params.level
    return types.EmptyResult()


class McpHost:
    """The host of one `tools/call`: its progress token, log level and client capabilities.

    Args:
        ctx: The SDK's `ServerRequestContext` of the request.
        params: The request's `CallToolRequestParams`.
    """

    def __init__(self, ctx: Any, params: Any) -> None:
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        self._ctx = ctx
        self._modern = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
        self._answers: dict[str, Any] = {}
        self._asked: dict[str, int] = {}
        self.pending: dict[str, Any] = {}
        """Questions that the client must answer before the call can finish (2026-07-28)."""
        self.missing: Any = None
        """The client capability a question needed and the client lacks (2026-07-28)."""
        self.task: Any = None
        """Once the call became a task (`_tasks`): where its questions go; its request is over."""
        if self._modern:
            self._answers = _decode_state(getattr(params, "request_state", None))
            for key, response in (
                getattr(params, "input_responses", None) or {}
            ).items():
                self._answers[key] = dump(response)

    # ------------------------------------------------------------ progress and log

    async def progress(
        self,
        context: Context[Any],
        progress: float,
        total: float | None,
        message: str | None,
    ) -> None:
        """`notifications/progress`, when the client sent a progress token (and the call is not a task)."""
        if self.task is None:
            await self._ctx.session.report_progress(progress, total, message)

    async def log(
        self, context: Context[Any], level: str, message: str, data: dict[str, Any]
    ) -> None:
        """`notifications/message`, if the client wants records of this level (and the call is not a task)."""
        if self.task is not None or not self._wants(level):
            return
        import mcp.types as types

        payload: Any = (
            message if not data else {"message": message, **to_jsonable(data)}
        )
        notification = types.LoggingMessageNotification(
            params=types.LoggingMessageNotificationParams(
                level=level,  # type: ignore[arg-type]  # one of LEVELS
                data=payload,
                logger=context.tool_name,
            )
        )
        await self._ctx.session.send_notification(
            notification, related_request_id=self._ctx.request_id
        )

    def _wants(self, level: str) -> bool:
        if self._modern:  # the request's own opt-in, as the SDK reads it
            from mcp.server.connection import allowed_log_levels

            allowed: Any = allowed_log_levels(
                self._ctx.protocol_version, self._ctx.meta
            )
            return level in allowed
        state = connection_state(self._ctx)
        least = state.get(_LEVEL_KEY) if state is not None else None
        return least not in LEVELS or LEVELS.index(level) >= LEVELS.index(least)

    # ------------------------------------------------------------ sampling

    async def sample(
        self,
        context: Context[Any],
        messages: list[dict[str, str]],
        *,
        system: str | None,
        max_tokens: int,
        temperature: float | None,
        key: str | None = None,
    ) -> str:
        """`sampling/createMessage`; the text of the client model's answer."""
        import mcp.types as types

        params = types.CreateMessageRequestParams(
            messages=[
                types.SamplingMessage(
                    role=item["role"],  # type: ignore[arg-type]  # checked by Context.sample
                    content=types.TextContent(type="text", text=item["content"]),
                )
                for item in messages
            ],
            max_tokens=max_tokens,
            system_prompt=system,
            temperature=temperature,
        )
        result = await self._ask(
            context, "sample", types.CreateMessageRequest(params=params), key
        )
        return _text_of(result.content)

    # ------------------------------------------------------------ elicitation

    async def elicit(
        self,
        context: Context[Any],
        message: str,
        schema: dict[str, Any],
        key: str | None = None,
    ) -> Elicited[dict[str, Any]]:
        """`elicitation/create` with a form; the user's answer as a JSON dict."""
        import mcp.types as types

        form = types.ElicitRequestFormParams(message=message, requested_schema=schema)
        result = await self._ask(
            context, "elicit", types.ElicitRequest(params=form), key
        )
        if result.action != "accept":
            return Elicited(result.action)
        return Elicited("accept", dict(result.content or {}))

    async def approve(
        self, context: Context[Any], tool: str, arguments: dict[str, Any]
    ) -> bool | str:
        """Ask the client's user to approve a call: True, or the reason of a denial.

        A form with an `approve` checkbox and a `reason`, sent as an
        elicitation (up to 2025-11-25) or as an input-required result
        (2026-07-28); a client without elicitation cannot be asked, and
        the call's result says that it needs approval.
        """
        import mcp.types as types

        form = types.ClientCapabilities(elicitation=types.ElicitationCapability())
        if not self._ctx.session.check_client_capability(form):
            # The model reads why the call did not run: an error result, not
            # the protocol error a tool's own question gets. Its text follows
            # "Tool X needs a human's approval before it runs.", so it does
            # not say that again.
            msg = "The MCP client cannot ask its user: it did not declare the elicitation capability."
            raise ToolError(msg)
        shown = json.dumps(arguments, ensure_ascii=False, default=repr)
        answer = await self.elicit(
            context,
            f'Allow the tool "{tool}" to run with the arguments {shown}?',
            _APPROVAL_FORM,
        )
        data = answer.data if isinstance(answer.data, dict) else {}
        if answer.action == "accept" and data.get("approve") is True:
            return True
        reason = data.get("reason")
        return reason if isinstance(reason, str) else ""

    # ------------------------------------------------------------ roots

    async def roots(self, context: Context[Any], key: str | None = None) -> list[str]:
        """`roots/list`; the URIs of the client's roots."""
        import mcp.types as types

        result = await self._ask(context, "roots", types.ListRootsRequest(), key)
        return [str(root.uri) for root in result.roots]

    # ------------------------------------------------------------ the two paths

    async def _ask(
        self, context: Context[Any], kind: str, request: Any, key: str | None
    ) -> Any:
        """Ask the client `request` ("sample", "elicit" or "roots") and return its typed answer.

        Up to 2025-11-25 the request goes over the session and is awaited;
        from 2026-07-28 the answer comes with the client's next call, or the
        call ends asking for it (see `_answer_or_ask`), under the tool's
        `key` for the question or a name made from it.
        """
        result_type, capability, name, what = _question(kind)
        self._check_client(context, capability, name, what)
        if (
            self.task is not None
        ):  # the question waits in the task (tasks/update answers it)
            answer = await self.task.ask(self._key(kind, request, key), request)
            return result_type.model_validate(answer)
        if self._modern:
            answer = self._answer_or_ask(self._key(kind, request, key), request)
            return result_type.model_validate(answer)
        return await self._send(context, request, result_type)

    def _check_client(
        self, context: Context[Any], capability: Any, name: str, what: str
    ) -> None:
        """Refuse a question that this client cannot be asked, saying why.

        Raises:
            ToolError: The connection cannot carry a request to the client
                (up to 2025-11-25: a stateless server, which also forgot the
                capabilities of `initialize`, or one that answers with JSON
                bodies), or the client did not declare the capability.
        """
        session = self._ctx.session
        if not self._modern and (
            session.client_capabilities is None or not session.can_send_request
        ):
            why = (
                "this connection cannot carry a request from the server to the client "
                "(the server keeps no session, or answers with JSON bodies). Clients "
                "of MCP protocol 2026-07-28 can answer it"
            )
            raise cannot(context, what, why)
        if not session.check_client_capability(capability):
            if self._modern:  # the call fails with the protocol's own error
                self.missing = capability
                raise InputRequired(str(_refused(context, name, what)))
            raise _refused(context, name, what)

    async def _send(self, context: Context[Any], request: Any, result_type: Any) -> Any:
        """Send `request` to the client over the session and wait (up to 2025-11-25)."""
        from mcp.shared.exceptions import NoBackChannelError
        from mcp.shared.message import ServerMessageMetadata

        try:
            return await self._ctx.session.send_request(
                request,
                result_type,
                metadata=ServerMessageMetadata(related_request_id=self._ctx.request_id),
            )
        except NoBackChannelError:
            msg = (
                f'Tool "{context.tool_name}" needs to send the client a {request.method} '
                "request, which this connection cannot carry (it has no channel from the "
                "server to the client)."
            )
            raise ToolError(msg) from None

    def _key(self, kind: str, request: Any, name: str | None) -> str:
        """The key a question is asked and answered under: the tool's `name` for it, else one made from it."""
        named = name is not None
        if name is None:
            name = f"{kind}-{digest_of(dump(request))[:16]}"
        seen = self._asked.get(name, 0)
        self._asked[name] = seen + 1
        # A question the tool named is asked under its name; asked again, under NAME-1, ...
        return name if named and not seen else f"{name}-{seen}"

    def _answer_or_ask(self, key: str, request: Any) -> Any:
        """The client's answer to `request`, or `InputRequired` after noting the question (2026-07-28)."""
        if key in self._answers:
            return self._answers[key]
        self.pending[key] = request
        msg = "The call waits for the client's answer to a question; it resumes when the client calls again with it."
        raise InputRequired(msg)

    def missing_capability(self) -> Exception:
        """The JSON-RPC error (-32021) for a question the client's capabilities do not allow (2026-07-28)."""
        from mcp.shared.exceptions import MCPError
        from mcp_types import MISSING_REQUIRED_CLIENT_CAPABILITY

        needed = dump(self.missing)
        names = ", ".join(needed)
        return MCPError(
            MISSING_REQUIRED_CLIENT_CAPABILITY,
            f"The tool needs the client capability {names}, which the request did not declare.",
            data={"requiredCapabilities": needed},
        )

    def input_required(self) -> Any:
        """The `InputRequiredResult` asking the pending questions, with the answers so far."""
        import mcp.types as types

        return types.InputRequiredResult(
            input_requests=self.pending, request_state=_encode_state(self._answers)
        )


_APPROVAL_FORM: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approve": {"type": "boolean", "title": "Approve", "default": False},
        "reason": {"type": "string", "title": "Reason, if you deny it"},
    },
    "required": ["approve"],
}


def _question(key: str) -> tuple[Any, Any, str, str]:
    """What asking the client for `key` ("sample", "elicit" or "roots") takes.

    Returns:
        The answer's type, the client capability the question needs, the
        capability's name and what the tool wants to do, for messages.
    """
    import mcp.types as types

    if key == "sample":
        return (
            types.CreateMessageResult,
            types.ClientCapabilities(sampling=types.SamplingCapability()),
            "sampling",
            "ask the client's model for a completion",
        )
    if key == "roots":
        return (
            types.ListRootsResult,
            types.ClientCapabilities(roots=types.RootsCapability()),
            "roots",
            "list the client's roots",
        )
    return (
        types.ElicitResult,
        types.ClientCapabilities(elicitation=types.ElicitationCapability()),
        "elicitation",
        "ask the user a question",
    )


def _refused(context: Context[Any], capability: str, what: str) -> ToolError:
    why = f"the MCP client did not declare the {capability} capability"
    return cannot(context, what, why)


def _text_of(content: Any) -> str:
    """The text of a sampling result's content (a block, or a list of blocks)."""
    blocks = content if isinstance(content, list) else [content]
    texts = [block.text for block in blocks if getattr(block, "type", None) == "text"]
    if not texts:
        kinds = (
            ", ".join(str(getattr(block, "type", "?")) for block in blocks) or "nothing"
        )
        msg = f"The client's model answered with {kinds}, not text."
        raise ToolError(msg)
    return "".join(texts)


def _encode_state(answers: dict[str, Any]) -> str:
    text = json.dumps({"v": _STATE_VERSION, "answers": answers}, separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode()).decode()


def _decode_state(state: object) -> dict[str, Any]:
    """The answers carried by a `request_state` this server made; {} for anything else."""
    if not isinstance(state, str):
        return {}
    try:
        decoded = json.loads(base64.urlsafe_b64decode(state.encode()))
    except (ValueError, TypeError):
        return {}
    if not isinstance(decoded, dict) or decoded.get("v") != _STATE_VERSION:
        return {}
    answers = decoded.get("answers")
    return answers if isinstance(answers, dict) else {}
