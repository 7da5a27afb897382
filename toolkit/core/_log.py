"""The `toolkit` logger, made on first use.

It gets a `NullHandler`, as the logging docs advise for libraries: nothing is
printed unless the application configures logging (or `toolkit call
--verbose` does). A tool's exception, a failing middleware and a value that
cannot be sent are logged at ERROR with their traceback; threads held by
timed-out calls are reported at WARNING. `logging` is imported only when
something is logged.
"""

from __future__ import annotations

from typing import Any

__all__ = ["log_failure", "log_warning", "logger"]

_ready = False


def logger() -> Any:
    """The `toolkit` logger, with its `NullHandler`."""
    import logging

    global _ready  # set once, on first use
    found = logging.getLogger("toolkit")
    if not _ready:
        found.addHandler(logging.NullHandler())
        _ready = True
    return found


def log_failure(message: str, *args: Any, error: BaseException) -> None:
    """Log `message` with the traceback of `error` at ERROR level on the `toolkit` logger."""
    logger().error(message, *args, exc_info=error)


def log_warning(message: str, *args: Any) -> None:
    """Log `message` at WARNING level on the `toolkit` logger."""
    logger().warning(message, *args)
