"""A catalog of a few hundred tools, deferred: what each request costs, on every API.

Seven services (GitHub, calendar, email, CRM, files, database, team chat)
are mounted as prefixed, deferred sets beside two eager tools: 254 tools.
A scripted model, shaped like each real API's responses, searches for
what it needs, calls it, and answers. For every request the example prints
its size with deferral and without (the same conversation with every tool
sent up front), and the tools each search found.

Chat Completions, Gemini and MCP get toolkit's own `search_tools`, which
the set runs; OpenAI Responses and Anthropic search on the API's side (here
`ToolSet.search` stands in for their search, since there is no network).
For those two the request carries every definition, and what counts is what
the model reads up front ("context"): Anthropic shows none of the deferred
tools, Responses each namespace's name and description.

Run it with `python examples/many_tools.py`. No network, no API key.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from toolkit import Tool, ToolSet, tool
from toolkit.providers import anthropic, gemini, mcp, openai, openai_responses

SERVICES = {
    "gh": ("GitHub", ["issue", "pull request", "repository", "branch", "release", "comment"]),
    "cal": ("the calendar", ["event", "calendar", "invitation", "reminder", "meeting room", "attendee"]),
    "mail": ("email", ["email message", "draft", "mailbox folder", "contact", "attachment", "filter rule"]),
    "crm": ("the CRM", ["customer", "lead", "deal", "invoice", "support ticket", "order"]),
    "files": ("file storage", ["file", "folder", "share link", "file version", "storage quota", "trash item"]),
    "db": ("the database", ["table", "row", "index", "backup", "query plan", "user role"]),
    "chat": ("team chat", ["channel", "chat message", "thread", "reaction", "user status", "bot"]),
}  # fmt: skip
VERBS = {
    "list": ("List the {object}s in {service}.", {"limit": ("integer", "How many to list at most.")}),
    "get": ("Get one {object} from {service} by its id.", {"id": ("string", "The {object}'s id.")}),
    "create": ("Create a new {object} in {service}.", {"name": ("string", "The new {object}'s name."), "details": ("string", "What the {object} is about.")}),
    "update": ("Change a {object} in {service}.", {"id": ("string", "The {object}'s id."), "details": ("string", "The new details.")}),
    "delete": ("Delete a {object} from {service}; it cannot be undone.", {"id": ("string", "The {object}'s id.")}),
    "search": ("Search the {object}s in {service} by text.", {"query": ("string", "Words the {object} contains.")}),
}  # fmt: skip


def service(label: str, objects: list[str]) -> ToolSet:
    """Six tools per kind of object: list, get, create, update, delete, search."""
    made = ToolSet()
    for obj in objects:
        for verb, (text, fields) in VERBS.items():
            name = f"{verb}_{obj.replace(' ', '_')}"

            def run(
                agent_id: str, call_id: str, args: dict[str, Any], name: str = name
            ) -> str:
                return f"{name}: done"

            properties = {
                key: {"type": kind, "description": about.format(object=obj)}
                for key, (kind, about) in fields.items()
            }
            parameters = {
                "type": "object",
                "properties": properties,
                "required": list(fields),
            }
            made.add(
                Tool.new(
                    name=name,
                    description=text.format(object=obj, service=label),
                    parameters=parameters,
                    execute_fn=run,
                )
            )
    return made


@tool
def get_time(zone: str = "UTC") -> str:
    """The current time in a time zone (an IANA name such as Europe/Paris)."""
    return "12:00"


@tool
def ask_user(question: str) -> str:
    """Ask the user a question and wait for the answer."""
    return "yes"


catalog = ToolSet([get_time, ask_user])
for prefix, (label, objects) in SERVICES.items():
    catalog = catalog | service(label, objects).prefixed(f"{prefix}_").deferred()
# The same tools, none deferred: what every request would carry without deferral.
eager = ToolSet([item.marked(defer_loading=False) for item in catalog])

USER = "Open an issue about the login bug in acme/web, and book a meeting room to triage it."
SCRIPT = [  # each turn: what the model searches for, then the tool it calls with its arguments
    ("open a new issue in a repository", None),
    (
        "book a meeting room",
        ("gh_create_issue", {"name": "Login bug", "details": "acme/web"}),
    ),
    (None, ("cal_create_meeting_room", {"name": "Triage", "details": "login bug"})),
    (None, None),
]
NATIVE = ("openai_responses", "anthropic")


# ----------------------------------------------------------- one response in each API's shape


def response(
    api: str, turn: int, search: str | None, call: tuple[str, dict[str, Any]] | None
) -> Any:
    """The scripted model's response: a search (toolkit's search_tools, or the API's own), a call, or its answer."""
    calls = []
    if search is not None and api not in NATIVE:
        calls.append((f"s{turn}", "search_tools", {"query": search}))
    if call is not None:
        calls.append((f"c{turn}", *call))
    if api == "openai":
        if not calls:
            return {"role": "assistant", "content": "Done: issue opened, room booked."}
        return {"role": "assistant", "content": None, "tool_calls": [
            {"id": id_, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
            for id_, name, args in calls
        ]}  # fmt: skip
    if api == "openai_responses":
        items: list[dict[str, Any]] = []
        if search is not None:  # the API's hosted tool search, run on its side
            items.append(
                {
                    "type": "tool_search_call",
                    "id": f"ts{turn}",
                    "execution": "server",
                    "status": "completed",
                    "arguments": {"query": search},
                }
            )
        items += [
            {
                "type": "function_call",
                "call_id": id_,
                "name": name,
                "arguments": json.dumps(args),
            }
            for id_, name, args in calls
        ]
        return {"output": items or [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done."}]}]}  # fmt: skip
    if api == "anthropic":
        blocks: list[dict[str, Any]] = []
        if search is not None:  # Anthropic's tool search tool, run on its side
            found = [
                {"type": "tool_reference", "tool_name": item.name}
                for item in catalog.search(search)
            ]
            blocks += [
                {"type": "server_tool_use", "id": f"srv{turn}", "name": "tool_search_tool_bm25", "input": {"query": search}},
                {"type": "tool_search_tool_result", "tool_use_id": f"srv{turn}", "content": {"type": "tool_search_tool_search_result", "tool_references": found}},
            ]  # fmt: skip
        blocks += [
            {"type": "tool_use", "id": id_, "name": name, "input": args}
            for id_, name, args in calls
        ]
        return {
            "role": "assistant",
            "content": blocks or [{"type": "text", "text": "Done."}],
        }
    if api == "gemini":
        parts = [
            {"functionCall": {"id": id_, "name": name, "args": args}}
            for id_, name, args in calls
        ]
        return {"role": "model", "parts": parts or [{"text": "Done."}]}
    return [
        {"name": name, "arguments": args} for _, name, args in calls
    ]  # MCP: tools/call params


# ----------------------------------------------------------- sizes


def size(value: Any) -> int:
    """Bytes of compact JSON."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def in_context(api: str, tools: list[Any]) -> list[Any]:
    """What the model reads up front of the tools sent: deferred ones stay out (Anthropic), or show only names and descriptions (Responses)."""
    if api == "anthropic":
        return [item for item in tools if not item.get("defer_loading")]
    if api == "openai_responses":
        return [
            {key: item[key] for key in ("type", "name", "description") if key in item}
            if item.get("defer_loading") or item.get("type") == "namespace"
            else item
            for item in tools
        ]
    return tools


# ----------------------------------------------------------- the conversation

PROVIDERS = {
    "openai": openai,
    "openai_responses": openai_responses,
    "anthropic": anthropic,
    "gemini": gemini,
    "mcp": mcp,
}


async def conversation(api: str) -> None:
    tools = catalog.filtered(
        lambda item: True
    )  # a view: this conversation loads for itself
    provider = PROVIDERS[api]
    history: list[Any] = [{"role": "user", "content": USER}]
    print(
        f"\n=== {api}: {len(tools)} tools, {sum(item.defer_loading for item in tools)} deferred"
    )
    for turn, (search, call) in enumerate(SCRIPT, start=1):
        sent, unsent = tools.export(api), eager.export(api)
        line = f"request {turn}: {size([sent, history]):>7,} B with deferral, {size([unsent, history]):>7,} B without"
        if api in NATIVE:
            line += f" (context: {size([in_context(api, sent), history]):,} B)"
        print(line)
        answer = response(api, turn, search, call)
        if api == "mcp":
            calls = [mcp.parse_calls(params)[0] for params in answer]
            replies: Any = await tools.run("agent", calls)
            history += [answer, [result.text for result in replies]]
        else:
            calls = provider.parse_calls(answer)
            replies = await tools.run("agent", calls)
            history += [answer, provider.results(calls, replies)]
        for each, result in zip(calls, replies, strict=True):
            found = result.structured["tools"] if each.name == "search_tools" else None
            print(
                f"  {each.name} -> {'found ' + ', '.join(found) if found else result.text}"
            )
        if search is not None and api in NATIVE:
            print(
                f"  the API's search -> found {', '.join(item.name for item in catalog.search(search))}"
            )
        if not calls and search is None:
            print("  the model answers")


def main() -> None:
    for api in PROVIDERS:
        asyncio.run(conversation(api))


if __name__ == "__main__":
    main()
