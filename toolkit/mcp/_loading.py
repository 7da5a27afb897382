"""Deferred tools over MCP: each client loads for itself, and learns what it loaded.

A served set with deferred tools lists its eager tools and `search_tools`
(`toolkit.sets._catalog`); what a client's searches load is listed for that
client only: each connection keeps a view of its own in its state
(`_host.connection_state`: a session's over HTTP, else the state of the
`Server.run` that serves the connection). When a search loads tools, the client is told its list
changed: a 2025-11-25 client by `notifications/tools/list_changed` on
its session, a 2026-07-28 client on the `subscriptions/listen` streams it
opened (that generation sends change notifications nowhere else). An
HTTP request without a session (2026-07-28, or a stateless server) is on
its own: nothing is kept for the next one, so the answer of its search
gives the definitions of the tools found, and no list changed.
"""

from __future__ import annotations

import contextlib
import json
from typing import TYPE_CHECKING, Any

from toolkit.tools._tool import Tool
from toolkit.values._results import ToolResult

from ._modern import is_modern

if TYPE_CHECKING:
    from toolkit.sets._toolset import ToolSet

__all__ = ["Loading"]


class Loading:
    """The set each client of a server sees, and what the server does when a client loads tools."""

    def __init__(self, toolset: ToolSet) -> None:
        from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler

        self.toolset = toolset
        self.deferred = any(item.defer_loading for item in toolset)
        self.bus = InMemorySubscriptionBus()
        """Where a 2026-07-28 client that is kept is told of what it loaded."""
        self.listen = ListenHandler(self.bus)

    def of(self, ctx: Any) -> ToolSet:
        """The set that answers a request: the served one, or its client's view of it."""
        if not self.deferred:
            return self.toolset
        from ._host import connection_state

        state = connection_state(ctx) if kept(ctx) else None
        if state is None:
            return self.toolset.filtered(_every)
        view = state.get("tools")
        if view is None:
            view = state["tools"] = self.toolset.filtered(_every)
        return view

    async def loaded(
        self, ctx: Any, served: ToolSet, outcome: ToolResult
    ) -> ToolResult:
        """The answer of a call that loaded tools into `served`, once the client is told.

        A client that is kept is told: `notifications/tools/list_changed`
        on its session (one that cannot be told is left), or from
        2026-07-28 a `ToolsListChanged` event on its listen streams. One
        that is not kept gets the MCP
        definitions of the tools found in the answer
        (`structuredContent.definitions`, and the text for its model), and
        calls them by name like any tool of the set.
        """
        if not kept(ctx):
            return _with_definitions(served, outcome)
        if is_modern(ctx):
            from mcp.server.subscriptions import ToolsListChanged

            await self.bus.publish(ToolsListChanged())
            return outcome
        send = getattr(getattr(ctx, "session", None), "send_tool_list_changed", None)
        if send is not None:
            with contextlib.suppress(Exception):
                await send()
        return outcome

    def server(self, *args: Any, **kwargs: Any) -> Any:
        """The SDK's lowlevel `Server(*args, **kwargs)`; when clients load tools, one that tells them.

        It then answers `subscriptions/listen` (2026-07-28) and declares
        `tools.listChanged` to clients of both generations (from
        2026-07-28 the SDK declares it because listen is answered).
        """
        from mcp.server.lowlevel import NotificationOptions, Server

        if not self.deferred:
            return Server(*args, **kwargs)

        class ListChangingServer(Server):
            def create_initialization_options(
                self, notification_options: Any = None, *args: Any, **kwargs: Any
            ) -> Any:
                options = notification_options or NotificationOptions(
                    tools_changed=True
                )
                return super().create_initialization_options(options, *args, **kwargs)

        return ListChangingServer(*args, on_subscriptions_listen=self.listen, **kwargs)


def _with_definitions(served: ToolSet, outcome: ToolResult) -> ToolResult:
    """`outcome` of a search, with the MCP definitions of the tools it found."""
    from toolkit.providers.mcp import tools

    found = outcome.structured["tools"]
    definitions = tools([served[name].marked(defer_loading=False) for name in found])
    lines = "\n".join(json.dumps(item, separators=(",", ":")) for item in definitions)
    return ToolResult(
        f"{outcome.text}\nTheir definitions:\n{lines}",
        structured={"tools": found, "definitions": definitions},
    )


def kept(ctx: Any) -> bool:
    """Whether the client of a request is the same on its next requests: stdio, in process, or an HTTP session.

    An HTTP request without `Mcp-Session-Id` (2026-07-28, or a stateless
    server) is on its own.
    """
    request = getattr(ctx, "request", None)
    headers = getattr(request, "headers", None)
    return headers is None or headers.get("mcp-session-id") is not None


def _every(item: Tool[Any, Any]) -> bool:
    return True
