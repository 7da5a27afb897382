"""Values that cross the model boundary: content parts, scalars, JSON text, and the outcome of a call (`ToolCall`, `ToolResult`).

It imports only `core`.
"""
