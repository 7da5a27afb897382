"""`ToolSet`: the per-agent registry, its composition, its turns of calls, its kept exports and its tool search.

It imports the layers below, `providers` included: a set's `export` asks the providers.
"""
