"""Provider adapters: one module per LLM API, imported on demand.

| module | API |
|---|---|
| `toolkit.providers.openai` | OpenAI Chat Completions |
| `toolkit.providers.openai_responses` | OpenAI Responses |
| `toolkit.providers.anthropic` | Anthropic Messages |
| `toolkit.providers.gemini` | Google Gemini (google-genai) |
| `toolkit.providers.mcp` | Model Context Protocol |

Each offers `tools(toolset_or_tools, **options)`, `parse_calls(message)`,
`results(calls, results)` and `await handle(toolset, agent_id, message)`.
None imports an SDK: responses are read by duck typing, as dicts (snake or
camel case) or as the SDK's own objects.
"""
