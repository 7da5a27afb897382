from __future__ import annotations

import dataclasses
import inspect
from typing import Annotated, Any, Literal

import pytest

from tests.conftest import assert_valid_schema
from toolkit import AITool, Context, Param, Tool, ToolDefinitionError, ToolSet, tool


@tool
def get_weather(city: str, unit: Literal["c", "f"] = "c") -> str:
    """Get the current weather for a city.

    Args:
        city: City name, for example "Paris".
        unit: Temperature unit.
    """
    return f"22 degrees {unit} in {city}"


def test_spec_example_exactly() -> None:
    assert get_weather.name == "get_weather"
    assert get_weather.description == "Get the current weather for a city."
    assert get_weather.parameters == {
        "type": "object",
        "properties": {
            "city": {
                "type": "string",
                "description": 'City name, for example "Paris".',
            },
            "unit": {
                "type": "string",
                "enum": ["c", "f"],
                "default": "c",
                "description": "Temperature unit.",
            },
        },
        "required": ["city"],
        "additionalProperties": False,
    }
    assert get_weather("Paris") == "22 degrees c in Paris"
    assert get_weather.output_schema is None
    assert_valid_schema(get_weather.parameters)


def test_tool_keeps_the_function_identity() -> None:
    assert isinstance(get_weather, Tool)
    assert get_weather.__name__ == "get_weather"
    assert get_weather.__doc__ is not None
    assert get_weather.__doc__.startswith("Get the current weather")
    assert inspect.signature(get_weather.__wrapped__) == inspect.signature(get_weather)
    assert repr(get_weather) == "Tool(name='get_weather')"
    assert type(get_weather).__module__ == "toolkit"


def test_a_misspelt_option_is_refused_with_the_closest_one() -> None:
    """Every entry point names the unknown option and suggests the known one."""

    def f(x: int) -> int:
        """Echo."""
        return x

    with pytest.raises(
        ToolDefinitionError,
        match=r"@tool has no option 'timout'. Did you mean 'timeout'\?",
    ):
        tool(timout=3)  # type: ignore[call-overload]
    with pytest.raises(
        ToolDefinitionError,
        match=r"has no option 'sequentail'. Did you mean 'sequential'\?",
    ):
        ToolSet().tool(sequentail=True)  # type: ignore[call-overload]
    with pytest.raises(
        ToolDefinitionError, match=r"Tool 'x' has no option 'docstring_style'"
    ):
        Tool.new(
            name="x",
            description="",
            parameters={"type": "object"},
            execute_fn=_echo,
            docstring_style="google",  # type: ignore[call-arg]
        )


def test_options_have_their_defaults() -> None:
    @tool
    def f(x: int) -> str:
        """Echo."""
        return str(x)

    made = Tool.new(
        name="g", description="", parameters={"type": "object"}, execute_fn=_echo
    )
    for item in (f, made):
        assert (
            item.widget,
            item.title,
            item.timeout,
            item.sequential,
            item.thread,
        ) == (None, None, None, False, True)
        assert (
            item.read_only,
            item.destructive,
            item.idempotent,
            item.open_world,
            item.output_schema,
        ) == (None, None, None, None, None)


def test_options_are_kept() -> None:
    class Map:
        id = "map"

        def render(self, data: Any) -> Any:
            return data

    widget = Map()

    @tool(
        name="find",
        description="Find things.",
        widget=widget,
        timeout=2,
        sequential=True,
        thread=False,
        title="Finder",
        read_only=True,
        destructive=False,
        idempotent=True,
        open_world=False,
    )
    async def search(q: str) -> str:
        return q

    assert (
        search.name,
        search.description,
        search.widget,
        search.timeout,
        search.title,
    ) == (
        "find",
        "Find things.",
        widget,
        2.0,
        "Finder",
    )
    assert (search.sequential, search.thread) == (True, False)
    assert (
        search.read_only,
        search.destructive,
        search.idempotent,
        search.open_world,
    ) == (True, False, True, False)


def test_to_ai_tool_drops_the_code() -> None:
    ai = get_weather.to_ai_tool()
    assert ai == AITool(
        "get_weather", "Get the current weather for a city.", get_weather.parameters
    )
    assert ai.to_dict() == {
        "name": "get_weather",
        "description": ai.description,
        "parameters": ai.parameters,
    }
    assert not hasattr(ai, "execute_fn")


def test_async_function_is_a_tool() -> None:
    @tool
    async def fetch(url: str) -> str:
        """Fetch a page."""
        return url

    assert fetch.parameters["required"] == ["url"]
    assert inspect.iscoroutinefunction(fetch.__wrapped__)


def test_no_parameters() -> None:
    @tool
    def now() -> str:
        """The time."""
        return "noon"

    assert now.parameters == {
        "type": "object",
        "properties": {},
        "additionalProperties": False,
    }


def test_unannotated_parameter_is_any_json_value() -> None:
    @tool
    def echo(value, count: int = 1):  # type: ignore[no-untyped-def]
        """Echo."""
        return value

    assert echo.parameters["properties"] == {
        "value": {},
        "count": {"type": "integer", "default": 1},
    }


def test_context_is_hidden_from_the_schema() -> None:
    @tool
    def whoami(ctx: Context, greeting: str = "hi") -> str:
        """Say who calls."""
        return greeting

    @tool
    def typed(name: str, ctx: Context[dict[str, int]] | None = None) -> str:
        """Typed deps."""
        return name

    assert whoami.parameters["properties"] == {
        "greeting": {"type": "string", "default": "hi"}
    }
    assert "required" not in whoami.parameters
    assert typed.parameters["required"] == ["name"]


class Service:
    factor = 3

    def __init__(self, base: int) -> None:
        self.base = base

    @tool
    def add(self, x: int) -> int:
        """Add to the base."""
        return self.base + x

    @tool
    @classmethod
    def scale(cls, x: int) -> int:
        """Scale by the factor."""
        return cls.factor * x

    @tool
    @staticmethod
    def double(x: int) -> int:
        """Double."""
        return 2 * x


def test_method_tool_drops_self() -> None:
    assert Service.add.parameters["properties"] == {"x": {"type": "integer"}}
    bound = Service(10).add
    assert isinstance(bound, Tool)
    assert bound(5) == 15
    assert bound.parameters is Service.add.parameters


def test_classmethod_and_staticmethod_tools() -> None:
    assert Service.scale.parameters["properties"] == {"x": {"type": "integer"}}
    # mypy gives a decorator stacked on @classmethod the plain function, cls
    # included, so only access through the class needs telling.
    assert Service.scale(2) == 6  # type: ignore[call-arg, arg-type]
    assert Service(0).scale(2) == 6
    assert Service.double.parameters["properties"] == {"x": {"type": "integer"}}
    assert Service.double(4) == 8


def test_param_in_annotated_parameter() -> None:
    @tool
    def pick(
        count: Annotated[int, Param(ge=1, le=10, description="How many.")] = 3,
    ) -> str:
        """Pick."""
        return str(count)

    assert pick.parameters["properties"]["count"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 10,
        "default": 3,
        "description": "How many.",
    }


@dataclasses.dataclass
class Box:
    size: int = 1


def test_dataclass_default_is_serialised() -> None:
    @tool
    def pack(box: Box = Box(2)) -> str:  # noqa: B008  # a default instance, under test
        """Pack."""
        return "ok"

    assert pack.parameters["properties"]["box"] == {
        "$ref": "#/$defs/Box",
        "default": {"size": 2},
    }


# ------------------------------------------------------------------ errors


def _message(func: Any, **options: Any) -> str:
    with pytest.raises(ToolDefinitionError) as caught:
        tool(**options)(func)
    return str(caught.value)


def test_every_problem_is_reported_at_once() -> None:
    def bad(a: complex, *args: int, b: list[int] = None, **kwargs: Any) -> None:  # type: ignore[assignment]  # noqa: RUF013
        """Bad.

        Args:
            zz: Not a parameter.
        """

    assert _message(bad) == (
        "Cannot make a tool of test_every_problem_is_reported_at_once.<locals>.bad:\n"
        "- parameter 'a': the type complex is not supported. Use a JSON-compatible type (str, int, float, bool, list, dict, Literal, Enum, TypedDict, dataclass, ...) or Any\n"
        "- parameter '*args': *args cannot be sent by a model, which sends named arguments. Replace it with a parameter such as `args: list[...]`\n"
        "- parameter 'b': its default is None, which the annotation list[int] does not allow. Annotate it `list[int] | None`\n"
        "- parameter '**kwargs': **kwargs has no schema a model can follow. Replace it with named parameters, or with `kwargs: dict[str, ...]`\n"
        "- the docstring documents a parameter 'zz' that the function does not have (its parameters: a, args, b, kwargs). Fix the name or remove it from the docstring"
    )


def test_default_that_does_not_fit() -> None:
    def f(count: int = "three") -> None:  # type: ignore[assignment]
        """F."""

    assert _message(f) == (
        "Cannot make a tool of test_default_that_does_not_fit.<locals>.f: parameter 'count': its default 'three' "
        "does not fit its annotation int. Change the default or the annotation"
    )


def test_bool_default_does_not_fit_int() -> None:
    def f(count: int = True) -> None:
        """F."""

    assert "its default True does not fit its annotation int" in _message(f)


@pytest.mark.parametrize(
    "name",
    [
        "",
        "has space",
        "tab\there",
        "line\nbreak",
        "a" * 129,
        "nul\x00",
        "zero\u200bwidth",
        "nbsp\xa0",
    ],
)
def test_invalid_names(name: str) -> None:
    def f() -> None:
        """F."""

    assert _message(f, name=name) == (
        f"The tool name {name!r} of test_invalid_names.<locals>.f is not valid: a name has 1 to 128 "
        "printable characters and no whitespace. Pass name= with such a name"
    )


@pytest.mark.parametrize(
    "name",
    [
        "math.factorial",
        "github/search_issues",
        "db:query",
        "2fa",
        "ünïcode",
        "a" * 128,
        "_" + "a-9" * 21,
    ],
)
def test_names_of_real_catalogs_are_valid(name: str) -> None:
    def f() -> None:
        """F."""

    assert tool(name=name)(f).name == name
    made = Tool.new(
        name=name,
        description="F.",
        parameters={"type": "object"},
        execute_fn=lambda *_: "",
    )
    assert made.name == name


def test_unresolvable_annotation_names_the_parameter() -> None:
    def f(x: Missing) -> None:  # type: ignore[name-defined]  # noqa: F821
        """F."""

    assert _message(f) == (
        "Cannot make a tool of test_unresolvable_annotation_names_the_parameter.<locals>.f: parameter 'x': its "
        "annotation 'Missing' cannot be resolved (name 'Missing' is not defined). Define or import it at module level"
    )


def test_two_context_parameters() -> None:
    def f(a: Context, b: Context) -> None:
        """F."""

    assert _message(f) == (
        "Cannot make a tool of test_two_context_parameters.<locals>.f: parameters 'a', 'b' are all annotated "
        "Context. Keep one Context parameter"
    )


def test_context_inside_another_type() -> None:
    def f(a: list[Context]) -> None:
        """F."""

    assert _message(f).endswith(
        "parameter 'a': Context can only annotate a parameter of the tool itself, not a type inside another"
    )


def test_bad_timeout() -> None:
    def f() -> None:
        """F."""

    assert (
        _message(f, timeout=0)
        == "timeout of tool 'f' is 0. Pass a positive number of seconds, or None"
    )


def test_timeout_on_an_inline_sync_tool_is_refused() -> None:
    def f() -> None:
        """F."""

    assert _message(f, timeout=1, thread=False) == (
        "timeout=1 cannot stop the sync tool 'f', which runs inline (thread=False). "
        "Drop the timeout, or let it run in a thread"
    )


def test_tool_applied_twice() -> None:
    with pytest.raises(
        ToolDefinitionError,
        match=r"^'get_weather' is already a Tool; apply @tool once$",
    ):
        tool(get_weather)


def test_definition_error_is_a_value_error_with_fields() -> None:
    def f(a: complex) -> None:
        """F."""

    with pytest.raises(ValueError, match="complex") as caught:
        tool(f)
    error = caught.value
    assert isinstance(error, ToolDefinitionError)
    assert (
        error.function
        == "test_definition_error_is_a_value_error_with_fields.<locals>.f"
    )
    assert len(error.problems) == 1


# ------------------------------------------------------------------ Tool.new


def _echo(agent_id: str, call_id: str, args: dict[str, Any]) -> str:
    return str(args)


def test_tool_new_from_raw_parts() -> None:
    schema = {
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
    }
    made = Tool.new(
        name="read_file", description="Read a file", parameters=schema, execute_fn=_echo
    )
    assert (
        made.name,
        made.description,
        made.parameters,
        made.execute_fn,
        made.widget,
    ) == (
        "read_file",
        "Read a file",
        schema,
        _echo,
        None,
    )
    assert made.to_ai_tool() == AITool("read_file", "Read a file", schema)


@pytest.mark.parametrize(
    ("parameters", "message"),
    [
        (
            {"type": "string"},
            "parameters of tool 'x' must be a JSON Schema with \"type\": \"object\" at its root; got {'type': 'string'}",
        ),
        (
            {"type": "object", "properties": {"a": {"type": "strin"}}},
            "parameters of tool 'x' are not a valid JSON Schema (Draft 2020-12): at properties/a/type: 'strin' is not valid under any of the given schemas",
        ),
        (
            {"type": "object", "required": "a"},
            "parameters of tool 'x' are not a valid JSON Schema (Draft 2020-12): at required: 'a' is not of type 'array'",
        ),
    ],
)
def test_tool_new_rejects_bad_schemas(parameters: Any, message: str) -> None:
    with pytest.raises(ToolDefinitionError) as caught:
        Tool.new(name="x", description="", parameters=parameters, execute_fn=_echo)
    assert str(caught.value) == message


def test_tool_new_rejects_uncallable_execute_fn() -> None:
    with pytest.raises(
        ToolDefinitionError,
        match=r"^execute_fn of tool 'x' is 42, which cannot be called",
    ):
        Tool.new(name="x", description="", parameters={"type": "object"}, execute_fn=42)  # type: ignore[arg-type]


def test_tool_new_tool_cannot_be_called_directly() -> None:
    made = Tool.new(
        name="x", description="", parameters={"type": "object"}, execute_fn=_echo
    )
    with pytest.raises(TypeError, match="has no function to call"):
        made()
