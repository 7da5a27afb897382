"""toolkit: turn annotated Python functions into LLM tools.

`@tool` derives a tool's JSON Schema from the type hints and its description
from the docstring. See README.md for the tour.
"""

from ._content import Audio as Audio
from ._content import File as File
from ._content import Image as Image
from ._content import Resource as Resource
from ._content import ResourceLink as ResourceLink
from ._content import Text as Text
from ._context import Context as Context
from ._exceptions import DuplicateToolError as DuplicateToolError
from ._exceptions import ToolDefinitionError as ToolDefinitionError
from ._exceptions import ToolError as ToolError
from ._exceptions import ToolkitError as ToolkitError
from ._finding import Finding as Finding
from ._host import Elicited as Elicited
from ._host import Host as Host
from ._lint import lint as lint
from ._param import Param as Param
from ._policies import Approval as Approval
from ._policies import Rate as Rate
from ._results import TextUI as TextUI
from ._results import ToolCall as ToolCall
from ._results import ToolResult as ToolResult
from ._results import Widget as Widget
from ._results import WidgetUI as WidgetUI
from ._tool import AITool as AITool
from ._tool import Tool as Tool
from ._tool import json_schema as json_schema
from ._tool import tool as tool
from ._toolset import ToolSet as ToolSet
from ._version import __version__ as __version__

__all__ = [
    "AITool",
    "Approval",
    "Audio",
    "Context",
    "DuplicateToolError",
    "Elicited",
    "File",
    "Finding",
    "Host",
    "Image",
    "Param",
    "Rate",
    "Resource",
    "ResourceLink",
    "Text",
    "TextUI",
    "Tool",
    "ToolCall",
    "ToolDefinitionError",
    "ToolError",
    "ToolResult",
    "ToolSet",
    "ToolkitError",
    "Widget",
    "WidgetUI",
    "json_schema",
    "lint",
    "tool",
]

# Reprs and tracebacks show `toolkit.Tool`, not `toolkit._tool.Tool` (as httpx does).
for _name in __all__:
    globals()[_name].__module__ = "toolkit"
del _name
