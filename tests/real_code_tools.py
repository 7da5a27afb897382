"""Tools as real code writes them: loose return annotations, values JSON cannot hold, docstrings of every shape.

Used by tests/test_real_code.py, in process and served by `build_server`.

- `LOOSE`: one tool per annotation kind, each returning a value that does
  not fit its own annotation (or holds a leaf JSON cannot hold), as public
  API classes do (`Dict[str, str]` holding a dict, `List[str]` holding
  lists, an `mpmath.mpf` where a float is written).
- `DOCSTRINGS`: one tool per docstring shape found in real code (`Args:`
  over `None`, types in parentheses, a named Returns entry, sections out of
  order, tabs, mixed styles, an entry without its colon, a lone `Args:`).
- `MessageApi`, `MathApi`, `FileSystem`: small stateful classes in the
  style of public function-calling benchmarks, each method made a tool of
  an instance.
"""

from __future__ import annotations

import dataclasses
import decimal
import enum
from typing import Any, Dict, List, Literal, Optional, Set, Tuple, Union  # noqa: UP035

import mpmath
from typing_extensions import TypedDict

from toolkit import Tool, ToolSet, tool


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Person(TypedDict):
    name: str
    age: int


@dataclasses.dataclass
class Point:
    x: int
    y: int


class Opaque:
    """An object of no JSON kind, as a library returns its own handles."""

    def __str__(self) -> str:
        return "<handle 7>"


# (id, return annotation, returned value): each value breaks its annotation,
# or holds a leaf JSON cannot hold.
LOOSE: list[tuple[str, Any, Any]] = [
    ("dict_str_str_holding_dict", Dict[str, str], {"a": "1", "b": {"c": 2}}),  # noqa: UP006
    (
        "dict_union_nested",
        Dict[str, Union[str, bool]],  # noqa: UP006, UP007
        {"sent_status": True, "message_id": {"new_id": 67410}, "message": "sent"},
    ),
    (
        "dict_union_list_of_lists",
        Dict[str, Union[Dict[str, List[str]], str]],  # noqa: UP006, UP007
        {"messages": [["USR002", "hello"], ["USR003", "hi"]]},
    ),
    ("list_str_holding_lists", List[str], [["a", "b"], ["c"]]),  # noqa: UP006
    ("list_int_with_none", List[int], [1, None, 3]),  # noqa: UP006
    ("int_as_text", int, "7"),
    ("float_as_dict", float, {"value": 1.5}),
    ("bool_as_text", bool, "yes"),
    ("optional_int_as_dict", Optional[int], {"count": 3}),  # noqa: UP045
    ("literal_outside", Literal["on", "off"], "dimmed"),
    ("enum_outside", Color, "purple"),
    ("tuple_too_long", Tuple[int, int], [1, 2, 3]),  # noqa: UP006
    ("typeddict_missing_field", Person, {"name": "Ada"}),
    ("dataclass_as_other_dict", Point, {"x": 1, "z": 2}),
    ("union_of_neither", Union[int, str], [1, "a"]),  # noqa: UP007
    ("set_of_text_as_ints", Set[int], {"a", "b"}),  # noqa: UP006
    ("float_as_mpf", float, mpmath.mpf("2.5")),
    ("dict_of_mpf", Dict[str, float], {"mean": mpmath.mpf("1.25")}),  # noqa: UP006
    ("dict_of_decimal", Dict[str, float], {"price": decimal.Decimal("9.99")}),  # noqa: UP006
    ("any_with_object", Any, {"handle": Opaque(), "tags": {"x"}}),
    ("any_complex", Any, 1j),
    ("dict_with_tuple_key", Dict[str, int], {(1, 2): 3}),  # noqa: UP006
]


def _returning(name: str, annotation: Any, value: Any) -> Tool[Any, Any]:
    def give() -> Any:
        """Give the value this tool holds."""
        return value

    give.__annotations__ = {"return": annotation}
    give.__name__ = give.__qualname__ = name
    return tool(give)


LOOSE_TOOLS = [_returning(f"r_{name}", kind, value) for name, kind, value in LOOSE]


# -------------------------------------------------------------- docstrings

ARGS_NONE = """List the users.

Args:
    None

Returns:
    users (List[str]): The user names.
"""
LONE_ARGS = """Clear the screen.

Args:
"""
TYPES_IN_PARENTHESES = """Send a message.

Args:
    receiver_id (str): The user to send to.
    message (str): What to say.

Returns:
    sent_status (bool): True if the message was sent.
    message_id (int): The new message's id.
"""
OUT_OF_ORDER = """Move a file.

Returns:
    result (str): Where the file went.

Raises:
    ValueError: When there is no such file.

Args:
    source (str): The file.
    destination (str): The folder.
"""
TABS = "Rename a file.\n\nArgs:\n\tsource (str): The file.\n\tdestination (str): The new name.\n"
MIXED = """Copy a file.

:param source: The file.
Args:
    destination: The folder.
"""
MISSING_COLON = """Delete a file.

Args:
    source (str) The file, written without its colon.
    force (bool): Delete a read-only file too.
"""
NUMPY_BROKEN_SECTION = """Compute the mean.

Parameters
----------
numbers : list of float
    The numbers.

Raises
------
"""
REST_NAMELESS = """Compute the logarithm.

:param value: The number.
:param: The base, its name forgotten.
:returns: The logarithm.
"""

# (id, docstring, parameter names, the descriptions read, text the description keeps)
DOCSTRINGS: list[tuple[str, str, list[str], dict[str, str], str]] = [
    ("args_none", ARGS_NONE, [], {}, "List the users."),
    ("lone_args", LONE_ARGS, [], {}, "Clear the screen."),
    (
        "types_in_parentheses",
        TYPES_IN_PARENTHESES,
        ["receiver_id", "message"],
        {"receiver_id": "The user to send to.", "message": "What to say."},
        "Send a message.",
    ),
    (
        "out_of_order",
        OUT_OF_ORDER,
        ["source", "destination"],
        {"source": "The file.", "destination": "The folder."},
        "Move a file.",
    ),
    (
        "tabs",
        TABS,
        ["source", "destination"],
        {"source": "The file.", "destination": "The new name."},
        "Rename a file.",
    ),
    (
        "mixed_styles",
        MIXED,
        ["source", "destination"],
        {"destination": "The folder."},
        ":param source: The file.",
    ),
    (
        "missing_colon",
        MISSING_COLON,
        ["source", "force"],
        {"force": "Delete a read-only file too."},
        "source (str) The file, written without its colon.",
    ),
    (
        "numpy_broken_section",
        NUMPY_BROKEN_SECTION,
        ["numbers"],
        {"numbers": "The numbers."},
        "Compute the mean.",
    ),
    (
        "rest_nameless",
        REST_NAMELESS,
        ["value"],
        {"value": "The number."},
        ":param: The base, its name forgotten.",
    ),
]


def _documented(name: str, doc: str, parameters: list[str]) -> Tool[Any, Any]:
    def document(**kwargs: Any) -> str:
        return ",".join(f"{key}={value}" for key, value in sorted(kwargs.items()))

    # A function with exactly the named str parameters, written out.
    source = f"def {name}({', '.join(f'{item}: str' for item in parameters)}) -> str:\n"
    source += (
        f"    return document({', '.join(f'{item}={item}' for item in parameters)})\n"
    )
    scope: dict[str, Any] = {"document": document}
    exec(source, scope)  # a signature made from the case's names
    function: Any = scope[name]
    function.__doc__ = doc
    made: Tool[Any, Any] = tool(function)
    return made


DOCSTRING_TOOLS = [
    _documented(f"d_{name}", doc, parameters)
    for name, doc, parameters, _, _ in DOCSTRINGS
]


# -------------------------------------------------------------- stateful APIs


class MessageApi:
    """Users send each other messages."""

    def __init__(self) -> None:
        self.users: Dict[str, str] = {"Alice": "USR001", "Bob": "USR002"}  # noqa: UP006
        self.inbox: Dict[str, List[List[str]]] = {}  # noqa: UP006
        self.next_id = 67410

    def list_users(self) -> Dict[str, List[str]]:  # noqa: UP006
        """List all users.

        Args:
            None

        Returns:
            user_list (List[str]): The users' names.
        """
        return {"user_list": sorted(self.users)}

    def get_user_id(self, user: str) -> Dict[str, str]:  # noqa: UP006
        """Get the id of a user.

        Args:
            user (str): The user's name.

        Returns:
            user_id (str): The id.
        """
        if user not in self.users:
            return {"error": f"no user {user}"}
        return {"user_id": self.users[user]}

    def send_message(
        self, receiver_id: str, message: str
    ) -> Dict[str, Union[str, bool]]:  # noqa: UP006, UP007
        """Send a message to a user.

        Args:
            receiver_id (str): The id of the receiver.
            message (str): The message.

        Returns:
            sent_status (bool): True if sent.
            message_id (int): The id of the message.
            message (str): A confirmation.
        """
        self.inbox.setdefault(receiver_id, []).append([str(self.next_id), message])
        sent = {
            "sent_status": True,
            "message_id": {"new_id": self.next_id},
            "message": f"Message sent to '{receiver_id}'.",
        }
        self.next_id += 1
        return sent  # type: ignore[return-value]  # the annotation is loose, as real code's is

    def view_messages_sent(
        self,
    ) -> Dict[str, Union[Dict[str, List[str]], str]]:  # noqa: UP006, UP007
        """View every message sent.

        Returns:
            messages (Dict): The messages by receiver.
        """
        return {"messages": self.inbox}  # type: ignore[dict-item]


class MathApi:
    """Arithmetic at a chosen precision."""

    def __init__(self) -> None:
        self.history: List[str] = []  # noqa: UP006

    def mean(self, numbers: List[float]) -> Dict[str, float]:  # noqa: UP006
        """Compute the mean of a list of numbers.

        Args:
            numbers (List[float]): The numbers.

        Returns:
            result (float): The mean.
        """
        self.history.append("mean")
        if not numbers:
            return {"error": "Cannot calculate mean of an empty list"}  # type: ignore[dict-item]
        return {"result": mpmath.fsum(numbers) / len(numbers)}

    def square_root(self, number: float, precision: int) -> Dict[str, float]:  # noqa: UP006
        """Compute a square root.

        Args:
            number (float): The number.
            precision (int): Decimal places.

        Returns:
            result (float): The root.
        """
        self.history.append("square_root")
        with mpmath.workdps(precision):
            return {"result": mpmath.sqrt(number)}

    def add(self, a: float, b: float) -> Dict[str, float]:  # noqa: UP006
        """Add two numbers.

        Args:
            a (float): The first.
            b (float): The second.

        Returns:
            result (float): The sum.
        """
        self.history.append("add")
        return {"result": a + b}


class FileSystem:
    """A small in-memory file system."""

    def __init__(self) -> None:
        self.files: Dict[str, str] = {"notes.txt": "hello"}  # noqa: UP006

    def ls(self) -> Dict[str, List[str]]:  # noqa: UP006
        """List the current directory.

        Args:
            None
        """
        return {"current_directory_content": sorted(self.files)}

    def touch(self, file_name: str) -> Optional[Dict[str, str]]:  # noqa: UP006, UP045
        """Create an empty file.

        Args:
            file_name (str): The name.
        """
        if file_name in self.files:
            return {"error": f"touch: {file_name}: File exists"}
        self.files[file_name] = ""
        return None

    def wc(self, file_name: str, mode: str = "l") -> Dict[str, Union[int, str]]:  # noqa: UP006, UP007
        """Count the lines, words or characters of a file.

        Args:
            file_name (str): The file.
            mode (str): "l", "w" or "c".
        """
        text = self.files.get(file_name, "")
        counted = {
            "l": len(text.splitlines()),
            "w": len(text.split()),
            "c": len(text),
        }[mode]
        kinds = {"l": "lines", "w": "words", "c": "characters"}
        return {"count": counted, "type": kinds}  # type: ignore[dict-item]  # loose, as real code's is


APIS = (MessageApi, MathApi, FileSystem)


def api_tools(*instances: Any) -> list[Tool[Any, Any]]:
    """Every public method of each instance, made a tool with `tool(instance.method)`."""
    return [
        tool(getattr(instance, name))
        for instance in instances
        for name in vars(type(instance))
        if not name.startswith("_") and callable(getattr(instance, name))
    ]


tools = ToolSet([*LOOSE_TOOLS, *DOCSTRING_TOOLS])
