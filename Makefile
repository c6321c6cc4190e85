# Two entry points, both self-contained from a fresh clone:
#   make demo   sets up .venv with ctxbudget and runs the demo
#   make test   sets up .venv with the dev extras and runs lint, type checks and every test
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint typecheck pytest clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The C extension is built by the install: a change to it installs again.
BUILD_INPUTS := pyproject.toml setup.py src/ctxbudget/tokens/_neighbours.c

$(VENV)/.installed-base: $(BUILD_INPUTS) | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: $(BUILD_INPUTS) | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@ $(VENV)/.installed-base

demo: $(VENV)/.installed-base
	$(BIN)/ctxbudget demo

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy --strict src

pytest: $(VENV)/.installed-dev
	$(BIN)/pytest

test: lint typecheck pytest

clean:
	rm -rf $(VENV) .ctxbudget .pytest_cache .mypy_cache .ruff_cache .hypothesis
