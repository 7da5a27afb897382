"""Checks that use the providers' own SDK types as the oracle (test-only)."""

from __future__ import annotations

import types
import typing
from typing import Any

import pydantic
import typing_extensions


def assert_typed_dict(value: Any, typed_dict: Any) -> None:
    """Valid for the SDK's TypedDict, and no key the TypedDict does not declare (at any depth)."""
    pydantic.TypeAdapter(typed_dict).validate_python(value, strict=False)
    _check_keys(value, typed_dict, "")


def _check_keys(value: Any, annotation: Any, path: str) -> None:
    if _allows_plain_dict(annotation):
        return
    for candidate in _typed_dicts(annotation):
        if isinstance(value, dict):
            hints = typing_extensions.get_type_hints(candidate, include_extras=True)
            if set(value) <= set(hints):
                for key, item in value.items():
                    _check_keys(item, hints[key], f"{path}.{key}")
                return
    if _typed_dicts(annotation) and isinstance(value, dict):
        raise AssertionError(
            f"{path or '(root)'}: keys {sorted(value)} fit none of {_typed_dicts(annotation)}"
        )
    for inner in _list_items(annotation):
        for index, item in enumerate(value if isinstance(value, list) else []):
            _check_keys(item, inner, f"{path}[{index}]")


_WRAPPERS = {
    typing.Annotated,
    typing_extensions.Annotated,
    typing_extensions.Required,
    typing_extensions.NotRequired,
    getattr(typing, "Required", typing_extensions.Required),
    getattr(typing, "NotRequired", typing_extensions.NotRequired),
}


def _strip(annotation: Any) -> Any:
    while True:
        origin = typing.get_origin(annotation)
        if origin is not None and origin in _WRAPPERS:
            annotation = typing.get_args(annotation)[0]
        else:
            return annotation


def _allows_plain_dict(annotation: Any) -> bool:
    annotation = _strip(annotation)
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return any(_allows_plain_dict(arg) for arg in typing.get_args(annotation))
    return annotation is dict or typing.get_origin(annotation) in (dict, typing.Dict)  # noqa: UP006


def _typed_dicts(annotation: Any) -> list[Any]:
    annotation = _strip(annotation)
    if typing_extensions.is_typeddict(annotation):
        return [annotation]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return [
            found for arg in typing.get_args(annotation) for found in _typed_dicts(arg)
        ]
    return []


def _list_items(annotation: Any) -> list[Any]:
    annotation = _strip(annotation)
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return [
            found for arg in typing.get_args(annotation) for found in _list_items(arg)
        ]
    if origin is not None and origin not in (dict,) and typing.get_args(annotation):
        name = getattr(origin, "__name__", "")
        if name in ("list", "Iterable", "Sequence"):
            return [typing.get_args(annotation)[0]]
    return []


def assert_round_trip(model: Any, value: dict[str, Any]) -> Any:
    """Valid for the SDK's pydantic model, and dumping it by alias gives back the same dict."""
    parsed = model.model_validate(value)
    assert parsed.model_dump(by_alias=True, exclude_unset=True, mode="json") == value
    return parsed
