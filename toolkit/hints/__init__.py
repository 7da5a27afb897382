"""Python annotations, docstrings and callables read into type nodes and parameters.

It imports `core` and `values`.
"""
