# perfweave: `make demo` and `make test` work from a clean clone on a fresh machine.
# `make demo` installs only the `demo` extra (JupyterLab, ipykernel, Voila) and opens the tour
# notebook in JupyterLab; `make test` installs everything (test, dev and the peers).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
EXTRAS ?= test,dev,bench,docs
comma  := ,
STAMP   = $(VENV)/.installed-$(subst $(comma),-,$(EXTRAS))

.PHONY: demo demo-text app test lint pytest bench venv test-pandas3 test-oldest clean js docs

venv: $(STAMP)

# (Re)create the virtual environment whenever pyproject.toml changes.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[$(EXTRAS)]"
	rm -f $(VENV)/.installed-*
	touch $@

# Its own stamp: the demo needs no test or peer packages, and `make test` still installs them all.
DEMO_STAMP = $(VENV)/.demo-installed
$(DEMO_STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[demo]"
	touch $@

# JupyterLab on notebooks/00_tour.ipynb (NOTEBOOK=... for another): prints the URL with its
# token; no browser is opened when there is no display. PORT=... picks the port.
demo: $(DEMO_STAMP)
	$(BIN)/perfweave lab $(NOTEBOOK) $(if $(PORT),--port $(PORT))

# The same notebook as a Voila dashboard.
app: $(DEMO_STAMP)
	$(BIN)/perfweave app $(NOTEBOOK) $(if $(PORT),--port $(PORT))

# The text tour: perfweave's parts on the bundled profiles, printed to the terminal.
demo-text: $(DEMO_STAMP)
	$(BIN)/python -m perfweave.examples.demo

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

# esbuild (npm, dev only) rebuilds the committed widget bundles; a test checks they are fresh.
JS_STAMP = js/node_modules/.package-lock.json
$(JS_STAMP): js/package-lock.json
	@if command -v npm >/dev/null; then cd js && npm ci --no-audit --no-fund --loglevel=error; \
	else echo "npm not found: the widget-bundle freshness test will skip"; fi

js: $(JS_STAMP)
	cd js && npm run -s build

# pytest exits 5 when it collects no test: say so plainly instead of failing the build.
# Independent tests run on every core (pytest-xdist), at most 4 workers: each browser worker
# starts its own JupyterLab and Chromium. PYTEST_WORKERS=0 runs them in one process.
PYTEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); [ $$n -gt 4 ] && n=4; echo $$n)
pytest: $(STAMP) $(JS_STAMP)
	@rc=0; $(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) $(PYTEST_ARGS) || rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests"; exit 0; fi; exit $$rc

test: lint pytest

# The same suite on pandas 3 (the peers pin pandas < 3, so their conformance tests are left out).
# Browser tests are left out too: pandas only touches the kernel side of a widget, which the
# unit tests cover here, and a second Lab + Chromium pass would only add minutes.
# It runs on the newest Python found (3.13 where pyenv has it, else python3), so CI covers
# the oldest (test-oldest), the usual and the newest interpreter.
# $(call find_python,3.13): the path of a python3.13 on PATH or in pyenv, or nothing.
find_python = $(shell for p in python$(1) $(HOME)/.pyenv/versions/$(1).*/bin/python$(1); do \
	$$p -c 'import sys; assert sys.version_info[:2] == ($(subst .,$(comma),$(1)))' 2>/dev/null \
	&& { command -v $$p; break; }; done)
NEWEST_PYTHON ?= $(call find_python,3.13)
VERSIONS = -c "import sys, numpy, pandas; print('Python', sys.version.split()[0], 'numpy', numpy.__version__, 'pandas', pandas.__version__)"
test-pandas3:
	$(MAKE) venv VENV=.venv-pandas3 EXTRAS=test,dev,docs PYTHON=$(or $(NEWEST_PYTHON),$(PYTHON))
	@.venv-pandas3/bin/python $(VERSIONS)
	$(MAKE) pytest VENV=.venv-pandas3 EXTRAS=test,dev,docs PYTEST_ARGS='-m "not peer and not browser"'

# The documentation site with its API reference (from the docstrings) in site/; `make test`
# builds it too (tests/test_docs.py).
docs: $(STAMP)
	$(BIN)/python -m mkdocs build --strict -f mkdocs.yml

# The core suite on the lowest versions pyproject.toml declares: the oldest Python of
# requires-python (3.10: OLDEST_PYTHON=... for another path) and numpy 1.26 / pandas 2.2
# (.ci/oldest-constraints.txt), so the declared floors cannot drift from what is tested.
# The test extra only (no peers, no ruff); widget, app and notebook tests are left out (make
# test and test-pandas3 run them; CI stays under 40 minutes), and so is the docs build (make
# test builds the site; on Python 3.10 pip resolves mkdocstrings 1.0.6 with pymdown-extensions
# 12.3, which fail together -- a tooling clash, not a perfweave one).
OLDEST_PYTHON ?= $(call find_python,3.10)
OLDEST_CONSTRAINTS := $(CURDIR)/.ci/oldest-constraints.txt
.venv-oldest/.installed-test: $(OLDEST_CONSTRAINTS)
test-oldest:
	@test -n "$(OLDEST_PYTHON)" || { echo "test-oldest: no python3.10 found (set OLDEST_PYTHON=/path/to/python3.10)"; exit 1; }
	PIP_CONSTRAINT=$(OLDEST_CONSTRAINTS) $(MAKE) venv VENV=.venv-oldest EXTRAS=test \
		PYTHON=$(OLDEST_PYTHON)
	@.venv-oldest/bin/python $(VERSIONS)
	PIP_CONSTRAINT=$(OLDEST_CONSTRAINTS) $(MAKE) pytest VENV=.venv-oldest EXTRAS=test \
		PYTEST_ARGS='-m "not peer and not browser" --ignore=tests/test_docs.py --ignore=tests/widgets --ignore=tests/apps --ignore=tests/notebooks'

bench: $(STAMP)
	$(BIN)/python -m benchmarks all

clean:
	rm -rf $(VENV) .venv-pandas3 .venv-oldest .pytest_cache .ruff_cache site
