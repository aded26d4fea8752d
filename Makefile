# Arbitre — the two set-up commands of the README are `make run` and `make test`.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: run test lint typecheck bench clean

$(STAMP): pyproject.toml setup.py
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/arbitre serve

lint: $(STAMP)
	$(BIN)/ruff check scoring puzzles
	$(BIN)/mypy --strict scoring puzzles

test: $(STAMP)
	bash scripts/system-deps.sh
	$(BIN)/ruff check scoring puzzles
	$(BIN)/mypy --strict scoring puzzles
	bash scripts/run-tests.sh

bench: $(STAMP)
	$(BIN)/python bench/movegen.py

clean:
	rm -rf $(VENV) build *.egg-info
