"""What the parts of a set read of it: the protocol its composition, exports and catalog take.

`ToolSet` is built from these modules (`_composition`, `_exports`,
`_catalog`), so none of them may import it: each takes the set as a
`SetView`, which `ToolSet` is. Its calls are the `Calls` class it is built
on (`_turn`), which declares what a call reads of the set.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from toolkit.policies._middleware import Middleware
    from toolkit.policies._policies import SetPolicy
    from toolkit.run._running import ThreadPool
    from toolkit.tools._call import Formatter
    from toolkit.tools._tool import Tool

__all__ = ["CatalogView", "Holder", "NamesView", "SetView"]


class Holder(Protocol):
    """What holds a set's tools: its own registry, or a view of other sets."""

    def state(self) -> object:
        """A value that changes whenever the tools do."""
        ...

    @property
    def tools(self) -> dict[str, Tool[Any, Any]]:
        """The tools by name, in order."""
        ...

    @property
    def plain(self) -> bool:
        """True only when every tool is `_plain` (read after the tools)."""
        ...


class CatalogView(Protocol):
    """What the calls and the exports read of a set's catalog of deferred tools."""

    @property
    def loaded(self) -> tuple[str, ...]: ...

    def search_tool(self, toolset: Any) -> Tool[Any, Any]: ...


class NamesView(Protocol):
    """The names exports sent for tools whose own name an API refuses."""

    def called_names(self, toolset: Any) -> dict[str, Any]: ...


class SetView(Protocol):
    """A `ToolSet`, as the modules it is built from read it."""

    @property
    def _holder(self) -> Holder: ...

    @property
    def _tools(self) -> dict[str, Tool[Any, Any]]: ...

    @property
    def _catalog(self) -> CatalogView: ...

    @property
    def _exports(self) -> NamesView: ...

    @property
    def _middleware(self) -> Sequence[Middleware]: ...

    @property
    def _pool(self) -> ThreadPool | None: ...

    @property
    def _policy(self) -> SetPolicy: ...

    @property
    def error_formatter(self) -> Formatter | None: ...

    @property
    def max_output_chars(self) -> int | None: ...

    @property
    def names(self) -> list[str]: ...

    def __iter__(self) -> Iterator[Tool[Any, Any]]: ...

    def __contains__(self, name: object) -> bool: ...

    def get(self, name: str) -> Tool[Any, Any] | None: ...

    def search(self, query: str, k: int = 5) -> list[Tool[Any, Any]]: ...

    def load(self, *names: str) -> tuple[str, ...]: ...

    def _callable(self, name: str) -> Tool[Any, Any] | None: ...

    def _unknown(self, name: str) -> str: ...
