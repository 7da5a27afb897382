"""The `toolkit` logger, made on first use.

It gets a `NullHandler`, as the logging docs advise for libraries: a tool's
traceback is recorded for applications that configure logging, and printed
nowhere otherwise. `logging` is imported only when something fails.
"""

from __future__ import annotations

from typing import Any

__all__ = ["log_failure"]

_ready = False


def log_failure(message: str, *args: Any, error: BaseException) -> None:
    """Log `message` with the traceback of `error` at ERROR level on the `toolkit` logger."""
    import logging

    global _ready  # set once, on the first failure
    logger = logging.getLogger("toolkit")
    if not _ready:
        logger.addHandler(logging.NullHandler())
        _ready = True
    logger.error(message, *args, exc_info=error)
