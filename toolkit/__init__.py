"""toolkit: turn annotated Python functions into LLM tools.

`@tool` derives a tool's JSON Schema from the type hints and its description
from the docstring. See README.md for the tour.
"""

from .cli._lint import lint as lint
from .core._exceptions import DuplicateToolError as DuplicateToolError
from .core._exceptions import ToolDefinitionError as ToolDefinitionError
from .core._exceptions import ToolError as ToolError
from .core._exceptions import ToolkitError as ToolkitError
from .core._finding import Finding as Finding
from .core._version import __version__ as __version__
from .hints._param import Param as Param
from .policies._policies import Rate as Rate
from .run._context import Context as Context
from .run._context import Host as Host
from .run._host import Elicited as Elicited
from .schema import json_schema as json_schema
from .sets._toolset import ToolSet as ToolSet
from .tools._tool import Tool as Tool
from .tools._tool import tool as tool
from .tools._views import AITool as AITool
from .values._content import Audio as Audio
from .values._content import File as File
from .values._content import Image as Image
from .values._content import Resource as Resource
from .values._content import ResourceLink as ResourceLink
from .values._content import Text as Text
from .values._results import Approval as Approval
from .values._results import TextUI as TextUI
from .values._results import ToolCall as ToolCall
from .values._results import ToolResult as ToolResult
from .values._results import Widget as Widget
from .values._results import WidgetUI as WidgetUI

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

# Reprs and tracebacks show `toolkit.Tool`, not `toolkit.tools._tool.Tool` (as httpx does).
for _name in __all__:
    globals()[_name].__module__ = "toolkit"
del _name
