"""The client side of the MCP tasks extension (`io.modelcontextprotocol/tasks`).

`mcp.connect` declares the extension; a server may then answer a
`tools/call` with a task (`resultType: "task"`) instead of the result. The
SDK's `Client` hands such an answer to the extension's claim, and `follow`
turns it into the call's result, as if the server had answered at once:

- it polls `tasks/get`, waiting the task's `pollIntervalMs` between looks;
- a task in `input_required` has its questions (`inputRequests`) answered
  by the client's callbacks, the host's `elicit`, `sample` and `roots`, and
  the answers sent with `tasks/update`;
- `completed` gives the result inlined in the task; `failed` is the JSON-RPC
  error it carries; `cancelled` (by someone else) is an error result;
- when the call's deadline passes, or whoever awaits the call is cancelled,
  the task is cancelled on the server (`tasks/cancel`) before the call ends.

Every request names its task in the `Mcp-Name` header, which the extension
asks for. The wire form is the server's own (`_tasks`).
"""

from __future__ import annotations

import contextvars
import functools
import math
import time
from collections.abc import Sequence
from typing import Any, Final, Literal

from toolkit.providers.mcp import dump
from toolkit.values._json import is_number

from ._tasks import EXTENSION, TERMINAL

__all__ = ["DEADLINE", "tasks_extension"]

DEADLINE: contextvars.ContextVar[float] = contextvars.ContextVar(
    "toolkit_mcp_call_deadline", default=math.inf
)
"""When (`time.monotonic()`) the call that runs in this task must have its answer."""

DEFAULT_POLL: Final = 0.5
"""Seconds between looks at a task whose server gives no `pollIntervalMs`."""

CANCEL_SECONDS: Final = 5.0
"""How long `tasks/cancel` may take once the call is over."""


def tasks_extension() -> Any:
    """The SDK `ClientExtension` that declares the extension and follows tasks to their end."""
    from mcp.client.extension import ClientExtension, ResultClaim

    handle = _models()[0]

    class Tasks(ClientExtension):
        identifier = EXTENSION

        def claims(self) -> Sequence[ResultClaim[Any]]:
            return [ResultClaim(result_type="task", model=handle, resolve=follow)]

    return Tasks()


@functools.cache
def _models() -> tuple[Any, Any, Any, Any]:
    """The pydantic models of the wire: a task handle, a `tasks/*` request and its params, an answer."""
    from mcp.types import Request, RequestParams, Result
    from pydantic import ConfigDict

    class TaskHandle(Result):
        """A `tools/call` answered with a task."""

        model_config = ConfigDict(extra="allow")
        result_type: Literal["task"]
        task_id: str
        status: str

    class TaskParams(RequestParams):
        model_config = ConfigDict(extra="allow")
        task_id: str

    class TaskRequest(Request[TaskParams, str]):
        name_param = "taskId"  # sent as the Mcp-Name header

    class Answer(Result):
        model_config = ConfigDict(extra="allow")

    return TaskHandle, TaskRequest, TaskParams, Answer


async def follow(handle: Any, claim: Any) -> Any:
    """The `CallToolResult` of the task `handle`, polled to its end; cancelled with the call."""
    import anyio
    from mcp.shared.exceptions import MCPError
    from mcp.types import REQUEST_TIMEOUT, CallToolResult, ErrorData, TextContent

    session = claim.session
    task = dump(handle)
    task_id = handle.task_id
    answered: set[str] = set()
    left = DEADLINE.get() - time.monotonic()
    try:
        with anyio.fail_after(max(left, 0) if math.isfinite(left) else None):
            while task["status"] not in TERMINAL:
                if task["status"] == "input_required":
                    await _answer(session, task_id, task, answered)
                await anyio.sleep(_interval(task))
                task = await _send(session, "tasks/get", task_id)
    except TimeoutError:
        await _cancel(session, task_id)
        msg = f"the task {task_id} did not end in time; it was cancelled"
        raise MCPError(REQUEST_TIMEOUT, msg) from None
    except BaseException:  # the caller was cancelled, or a request failed
        await _cancel(session, task_id)
        raise
    if task["status"] == "completed":
        return CallToolResult.model_validate(task.get("result") or {"content": []})
    if task["status"] == "failed":
        raise MCPError.from_error_data(
            ErrorData.model_validate(task.get("error") or {})
        )
    text = f"The task {task_id} was cancelled on the server."
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


def _interval(task: dict[str, Any]) -> float:
    """Seconds until the next look: the server's `pollIntervalMs`, else a default."""
    given = task.get("pollIntervalMs")
    if is_number(given) and given >= 0:
        return float(given) / 1000
    return DEFAULT_POLL


async def _answer(
    session: Any, task_id: str, task: dict[str, Any], answered: set[str]
) -> None:
    """Answer the task's open questions with the client's callbacks, through `tasks/update`."""
    from mcp.client.session import ClientRequestContext
    from mcp.shared.exceptions import MCPError
    from mcp.types import ErrorData, InputRequest
    from pydantic import TypeAdapter

    reader: TypeAdapter[Any] = TypeAdapter(InputRequest)
    responses: dict[str, Any] = {}
    for key, body in (task.get("inputRequests") or {}).items():
        if key in answered:
            continue
        request = reader.validate_python(body)
        context = ClientRequestContext(session=session, request_id=key, meta=None)
        answer = await session.dispatch_input_request(context, request)
        if isinstance(answer, ErrorData):  # the host refused: the task cannot go on
            raise MCPError.from_error_data(answer)
        responses[key] = dump(answer)
    if responses:
        await _send(session, "tasks/update", task_id, inputResponses=responses)
        answered.update(responses)


async def _cancel(session: Any, task_id: str) -> None:
    """Cancel the task on the server, whatever happens to the call meanwhile; a failure is only logged."""
    import anyio

    from toolkit.core._log import logger

    with anyio.CancelScope(shield=True), anyio.move_on_after(CANCEL_SECONDS):
        try:
            await _send(session, "tasks/cancel", task_id)
        except (
            Exception
        ) as error:  # the server is gone or the task ended: nothing to stop
            logger().debug("tasks/cancel of %s failed", task_id, exc_info=error)


async def _send(
    session: Any, method: str, task_id: str, **params: Any
) -> dict[str, Any]:
    """One `tasks/*` request through the session's public `send_request`; its result as a dict."""
    _, request_type, params_type, answer_type = _models()
    request = request_type(method=method, params=params_type(task_id=task_id, **params))
    found: dict[str, Any] = dump(await session.send_request(request, answer_type))
    return found
