# Two commands a newcomer needs: `make demo` and `make test`.
# Everything is installed into .venv from the project's own files.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

BENCH_VENV := .venv-bench

.PHONY: demo test lint typecheck pytest bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=25.1"
	$(BIN)/python -m pip install --quiet -e . --group test
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python examples/demo.py
	$(BIN)/python examples/agent_loop.py

test: lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check toolkit tests examples benchmarks
	$(BIN)/ruff format --check toolkit tests examples benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/python -m pytest -q

# The peers go into a venv of their own, so that the test venv stays lean.
$(BENCH_VENV)/.installed: pyproject.toml benchmarks/requirements.txt
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/python -m pip install --quiet --upgrade "pip>=25.1"
	$(BENCH_VENV)/bin/python -m pip install --quiet -e . -r benchmarks/requirements.txt
	touch $(BENCH_VENV)/.installed

bench: $(BENCH_VENV)/.installed
	$(BENCH_VENV)/bin/python benchmarks/run.py $(BENCH_ARGS)

clean:
	rm -rf .venv .venv-* .pytest_cache .mypy_cache .ruff_cache
