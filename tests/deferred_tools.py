"""A catalog with deferred tools, for `toolkit serve` and `toolkit budget` in tests."""

from __future__ import annotations

from tests.test_deferred import catalog

tools = catalog()
