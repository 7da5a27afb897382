"""Prompts over MCP: functions that a client's user picks by name, served beside the tools.

`@prompt` makes a `Prompt` of an annotated function as `@tool` makes a
tool: its parameters (text: MCP prompt arguments are strings) are the
prompt's arguments, described by the docstring, and checked as a tool's
are. It returns text, content parts (`Image`, `Resource`, ...) or a list
of them: each part is one user message of the `prompts/get` result. It may
take a `Context` and ask through it (`ctx.elicit`, `ctx.sample`) as a tool
does, through the same host (`_host`): a 2025-11-25 client is sent the
request, a 2026-07-28 client gets an `InputRequiredResult` and asks again
with the answers.

A `Prompt` is a `Tool`, so `toolkit serve file.py` finds the prompts of a
file as it finds its tools, and a set given to the server may hold them:
the server lists and gets the set's prompts as prompts, never as tools.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast, overload

from toolkit.core._exceptions import ToolDefinitionError
from toolkit.providers._common import mint_id
from toolkit.tools._tool import ClassLevelTool, Tool, tool

if TYPE_CHECKING:
    from collections.abc import Callable

    from toolkit.sets._toolset import ToolSet

__all__ = ["Prompt", "Prompts", "prompt"]


class Prompt(Tool[Any, Any]):
    """A `Tool` that the MCP server serves as a prompt (`prompts/list`, `prompts/get`)."""


class ClassLevelPrompt(Prompt, ClassLevelTool[Any, Any]):
    """A prompt made from a `classmethod` or `staticmethod`."""


@overload
def prompt(func: Callable[..., Any], /) -> Prompt: ...
@overload
def prompt(**options: Any) -> Callable[[Callable[..., Any]], Prompt]: ...
def prompt(func: Any = None, /, **options: Any) -> Any:
    """Make a `Prompt` of a function; bare (`@prompt`) or with `@tool`'s options (`name=`, `title=`, ...).

    Raises:
        ToolDefinitionError: The function cannot be a tool, or a parameter
            does not take text; the message names it and the fix.
    """

    def decorate(target: Any) -> Prompt:
        made = tool(**options)(target)
        for name, schema in made.parameters.get("properties", {}).items():
            kinds = [schema.get("type")] + [
                branch.get("type") for branch in schema.get("anyOf", ())
            ]
            if "string" not in kinds:
                problem = (
                    f"parameter {name!r} of the prompt {made.name!r} does not take text, "
                    "and MCP prompt arguments are strings: annotate it str (or a Literal "
                    "of strings) and convert it in the function"
                )
                raise ToolDefinitionError.collected(made.__qualname__, [problem])
        # The same tool, which the server serves as a prompt; a classmethod's
        # or staticmethod's keeps how it is read from its class.
        made.__class__ = (
            ClassLevelPrompt if isinstance(made, ClassLevelTool) else Prompt
        )
        return cast("Prompt", made)

    return decorate if func is None else decorate(func)


def is_prompt(item: Tool[Any, Any]) -> bool:
    return isinstance(item, Prompt)


class Prompts:
    """The `prompts/list` and `prompts/get` handlers of the prompts of a served set."""

    def __init__(self, toolset: ToolSet, agent_id: str) -> None:
        self.prompts = toolset.filtered(is_prompt)
        self.agent_id = agent_id

    async def list(self, ctx: Any, params: Any) -> Any:
        import mcp.types as types

        listed = []
        for item in self.prompts:
            required = item.parameters.get("required", ())
            arguments = [
                types.PromptArgument(
                    name=name,
                    description=schema.get("description"),
                    required=name in required,
                )
                for name, schema in item.parameters.get("properties", {}).items()
            ]
            listed.append(
                types.Prompt(
                    name=item.name,
                    title=item.title,
                    description=item.description or None,
                    arguments=arguments,
                )
            )
        return types.ListPromptsResult(prompts=listed)

    async def get(self, ctx: Any, params: Any) -> Any:
        """The prompt's messages; the question the client answers first (2026-07-28); -32602 for a bad request.

        Unknown name, arguments the prompt refuses and a function that
        failed are JSON-RPC errors (`prompts/get` has no error result), with
        what went wrong.
        """
        import mcp.types as types
        from mcp.shared.exceptions import MCPError
        from mcp_types import INVALID_PARAMS

        from toolkit.providers.mcp import result

        from ._host import McpHost

        item = self.prompts.get(params.name)
        if item is None:
            raise MCPError(INVALID_PARAMS, f"Unknown prompt: {params.name}")
        host = McpHost(ctx, params)
        request_id = getattr(ctx, "request_id", None)
        call_id = str(request_id) if request_id is not None else mint_id()
        # The prompt alone: the set's approval rule, middleware and output
        # limit are for the model's tool calls, not for what a user picks.
        outcome = await item.aexecute(
            self.agent_id, call_id, params.arguments or {}, host=host
        )
        if host.missing is not None:  # 2026-07-28: a question the client cannot take
            raise host.missing_capability()
        if host.pending:  # 2026-07-28: a question the client answers first
            return host.input_required()
        if outcome.is_error:
            raise MCPError(INVALID_PARAMS, outcome.text)
        messages = [
            types.PromptMessage(role="user", content=block)
            for block in result(outcome)["content"]
        ]
        return types.GetPromptResult(
            description=item.description or None, messages=messages
        )
