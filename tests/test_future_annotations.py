from __future__ import annotations

from tests import future_tools
from tests.conftest import assert_valid_schema


def test_postponed_annotations_resolve_to_their_types() -> None:
    schema = future_tools.send.parameters
    assert schema == {
        "type": "object",
        "properties": {
            "to": {"$ref": "#/$defs/Address", "description": "Where it goes."},
            "weight": {
                "type": "number",
                "exclusiveMinimum": 0,
                "description": "Kilograms.",
            },
            "speed": {
                "type": "string",
                "enum": ["slow", "fast"],
                "default": "slow",
                "description": "How fast.",
            },
        },
        "required": ["to", "weight"],
        "additionalProperties": False,
        "$defs": {
            "Address": {
                "type": "object",
                "description": "A postal address.",
                "properties": {
                    "street": {"type": "string", "description": "Street and number."},
                    "next_door": {
                        "anyOf": [{"$ref": "#/$defs/Address"}, {"type": "null"}],
                        "default": None,
                        "description": "The neighbour's address.",
                    },
                },
                "required": ["street"],
                "additionalProperties": False,
            }
        },
    }
    assert_valid_schema(schema)


def test_output_schema_resolves_too() -> None:
    assert future_tools.send.output_schema == {
        "type": "object",
        "additionalProperties": {"type": "string"},
    }
