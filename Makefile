# Two commands a newcomer needs: `make demo` and `make test`.
# Everything is installed into virtual environments from the project's own files.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# The demo runs with the package and its runtime dependencies only: what a
# user gets from `pip install toolkit-llm`, without the test tools.
DEMO_VENV := .venv-demo
DOCS_VENV := .venv-docs
DIST_VENV := .venv-dist
BENCH_VENV := .venv-bench

.PHONY: demo test lint typecheck pytest conformance docs dist bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=25.1"
	$(BIN)/python -m pip install --quiet -e . --group test
	touch $(STAMP)

$(DEMO_VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(DEMO_VENV)
	$(DEMO_VENV)/bin/python -m pip install --quiet --upgrade "pip>=25.1"
	$(DEMO_VENV)/bin/python -m pip install --quiet -e .
	touch $(DEMO_VENV)/.installed

demo: $(DEMO_VENV)/.installed
	$(DEMO_VENV)/bin/python examples/demo.py
	$(DEMO_VENV)/bin/python examples/agent_loop.py

test: lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check toolkit tests examples benchmarks
	$(BIN)/ruff format --check toolkit tests examples benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy

# One test process per core: the suite is mostly CPU-bound (schemas, hypothesis,
# server processes), so it finishes in about half the time on two cores.
pytest: $(STAMP)
	$(BIN)/python -m pytest -q -n auto --dist worksteal

# The official MCP conformance suite against `toolkit serve` over HTTP, then its
# client scenarios against examples/mcp_conformance_client.py; fails on a failure
# that .ci/conformance-expected-failures.yml does not list (see .ci/conformance
# and .ci/conformance-client). Then the same with the suite's 0.2.0 release
# (MCP 2026-07-28 and the tasks extension), against its own baseline.
CONFORMANCE_NEXT ?= 0.2.0-alpha.12

conformance: $(STAMP)
	PYTHON=$(BIN)/python bash .ci/conformance
	PYTHON=$(BIN)/python bash .ci/conformance-client
	MCP_CONFORMANCE_VERSION=$(CONFORMANCE_NEXT) PYTHON=$(BIN)/python bash .ci/conformance \
		examples/mcp_conformance_server.py .ci/conformance-expected-failures-0.2.yml
	MCP_CONFORMANCE_VERSION=$(CONFORMANCE_NEXT) PYTHON=$(BIN)/python bash .ci/conformance-client \
		examples/mcp_conformance_client.py .ci/conformance-expected-failures-0.2.yml

# The documentation site, built into site/. --strict turns every warning
# (a broken link, a page missing from the nav, an unknown reference) into a failure.
$(DOCS_VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(DOCS_VENV)
	$(DOCS_VENV)/bin/python -m pip install --quiet --upgrade "pip>=25.1"
	$(DOCS_VENV)/bin/python -m pip install --quiet --group docs
	touch $(DOCS_VENV)/.installed

docs: $(DOCS_VENV)/.installed
	NO_MKDOCS_2_WARNING=1 $(DOCS_VENV)/bin/mkdocs build --strict --site-dir site

# The wheel and the sdist, each installed into a new, empty venv and tried
# from outside the source tree, so that a file missing from either shows;
# `twine check --strict` first, so that a README a package index cannot
# render, or metadata it refuses, fails here and not at upload.
$(DIST_VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(DIST_VENV)
	$(DIST_VENV)/bin/python -m pip install --quiet --upgrade "pip>=25.1"
	$(DIST_VENV)/bin/python -m pip install --quiet --group dist
	touch $(DIST_VENV)/.installed

dist: $(DIST_VENV)/.installed
	rm -rf dist
	$(DIST_VENV)/bin/python -m build --outdir dist .
	$(DIST_VENV)/bin/twine check --strict dist/*.whl dist/*.tar.gz
	PYTHON=$(PYTHON) bash .ci/smoke dist/*.whl dist/*.tar.gz

# The peers go into a venv of their own, so that the test venv stays lean.
$(BENCH_VENV)/.installed: pyproject.toml benchmarks/requirements.txt benchmarks/requirements-data.txt
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/python -m pip install --quiet --upgrade "pip>=25.1"
	$(BENCH_VENV)/bin/python -m pip install --quiet -e . -r benchmarks/requirements.txt
	$(BENCH_VENV)/bin/python -m pip install --quiet --no-deps -r benchmarks/requirements-data.txt
	touch $(BENCH_VENV)/.installed

# The serving figures first (benchmarks/serving.md, .json: load against the MCP
# SDK's own server, and cold start over stdio), then the side-by-side table
# with every ratio goal, the serving ones included (benchmarks/results.md,
# .json), the chart of the ratios the docs show, and tool search on the
# Berkeley Function Calling Leaderboard's functions against pydantic-ai's and
# FastMCP's (benchmarks/search.md, .json).
bench: $(BENCH_VENV)/.installed
	$(BENCH_VENV)/bin/python benchmarks/serving.py --markdown benchmarks/serving.md --json benchmarks/serving.json $(SERVING_ARGS)
	$(BENCH_VENV)/bin/python benchmarks/run.py --markdown benchmarks/results.md --json benchmarks/results.json --serving benchmarks/serving.json $(BENCH_ARGS)
	$(BENCH_VENV)/bin/python benchmarks/chart.py benchmarks/results.json docs/images/benchmarks.png
	$(BENCH_VENV)/bin/python benchmarks/search.py --markdown benchmarks/search.md --json benchmarks/search.json $(SEARCH_ARGS)
	$(BENCH_VENV)/bin/python benchmarks/tracing.py --markdown benchmarks/tracing.md

clean:
	rm -rf .venv .venv-* .pytest_cache .mypy_cache .ruff_cache site dist
