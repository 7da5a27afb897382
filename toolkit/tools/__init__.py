"""`Tool` and the `@tool` decorator: one tool's options, names, views, and the steps of one call.

It imports the layers below, through `policies`.
"""
