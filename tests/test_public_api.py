from __future__ import annotations

import types

import toolkit


def test_all_lists_exactly_the_public_names_sorted() -> None:
    public = [
        name
        for name, value in vars(toolkit).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    ]
    assert toolkit.__all__ == sorted(public)


def test_public_names_belong_to_toolkit() -> None:
    for name in toolkit.__all__:
        assert getattr(toolkit, name).__module__ == "toolkit", name


def test_exception_hierarchy() -> None:
    assert issubclass(toolkit.ToolDefinitionError, toolkit.ToolkitError)
    assert issubclass(toolkit.ToolDefinitionError, ValueError)
    assert issubclass(toolkit.DuplicateToolError, toolkit.ToolDefinitionError)
    assert issubclass(toolkit.ToolError, toolkit.ToolkitError)
