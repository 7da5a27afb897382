"""Type nodes to JSON Schema, and back: the compiled check, the messages of invalid arguments, conversion to Python values, and a function's signature read whole.

It imports the layers below: `core`, `values`, `hints`.
"""
