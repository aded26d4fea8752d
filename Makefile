# Arbitre — the two set-up commands of the README are `make run` and `make test`.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: run test lint typecheck bench clean translations compile-translations

$(STAMP): pyproject.toml setup.py scoring/_movegen.c
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

# the message catalogues (webapp/translations, webapp.i18n): the .mo files are committed, and
# recompiled here from the .po so that an edited catalogue is always the one served
PYBABEL_EXTRACT := -F babel.cfg -k _ -k gettext -k lazy_gettext -k _l -k N_ -k ngettext:1,2 --no-location --sort-output --omit-header

translations: $(STAMP)
	$(BIN)/pybabel extract $(PYBABEL_EXTRACT) -o $(VENV)/messages.pot .
	$(BIN)/pybabel update -i $(VENV)/messages.pot -d webapp/translations --no-fuzzy-matching
	$(BIN)/pybabel compile -d webapp/translations

compile-translations: $(STAMP)
	$(BIN)/pybabel compile --statistics -d webapp/translations

run: $(STAMP) compile-translations
	$(BIN)/arbitre serve

lint: $(STAMP)
	$(BIN)/ruff check scoring puzzles webapp mailer
	$(BIN)/mypy --strict scoring puzzles webapp mailer

test: $(STAMP) compile-translations
	bash scripts/system-deps.sh
	$(BIN)/ruff check scoring puzzles webapp mailer
	$(BIN)/mypy --strict scoring puzzles webapp mailer
	bash scripts/run-tests.sh

bench: $(STAMP)
	$(BIN)/python bench/movegen.py

clean:
	rm -rf $(VENV) build *.egg-info
