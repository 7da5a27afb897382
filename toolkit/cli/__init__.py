"""The `toolkit` command, `lint`, and the targets that name the tools a command or a server uses.

The top layer with `testing`: it may import every other.
"""
