# Two entry points, both self-contained from a fresh clone:
#   make demo   sets up .venv and runs the demo
#   make test   sets up .venv and runs lint, type checks and the whole test suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck pytest clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/ctxbudget demo

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy --strict src

pytest: $(STAMP)
	$(BIN)/pytest

test: lint typecheck pytest

clean:
	rm -rf $(VENV) .ctxbudget .pytest_cache .mypy_cache .ruff_cache
