# The two commands of the README's quick start: `make demo` and `make test`.
# Each builds its own virtual environment from scratch on a fresh machine.

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install --quiet --disable-pip-version-check

.PHONY: demo test lint bench bench-quick clean

$(VENV)/.demo-ready: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) --upgrade pip
	$(PIP) -e ".[jax,torch,progress,io,record]" "pygame>=2.1.3" "ale-py>=0.9"
	touch $@

# Everything the test suite touches, so that no test is skipped: every backend
# (torch CPU 2.13.0, jax, tensorflow-cpu, array-api-strict), brax and gymnax;
# the dev extra brings OpenCV and ale-py (Atari, ROMs included) for the image wrappers.
# gymnax 1.0.1 caps gymnasium below 1.4 although it runs with it: installed
# without its dependency check, its other needs named here.
# RecordHTML's browser test drives Debian's chromium with Playwright (the dev
# extra); Playwright's own browser download is not used.
# PyTorch's compiled path (tests/test_torch_compile.py) has TorchInductor build
# C++ kernels: it needs a C++ compiler (Debian's g++).
$(VENV)/.test-ready: pyproject.toml $(VENV)/.demo-ready
	test -x /usr/bin/chromium || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium)
	test -x /usr/bin/g++ || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq g++)
	$(PIP) -e ".[dev,tf]"
	$(PIP) brax seaborn
	$(PIP) --no-deps "gymnax==1.0.1"
	touch $@

demo: $(VENV)/.demo-ready
	$(VENV)/bin/anywrap demo

test: $(VENV)/.test-ready lint
	$(PY) -m pytest -n 2 --durations=15 tests

lint: $(VENV)/.test-ready
	$(PY) -m ruff check src tests
	$(PY) -m ruff format --check src tests
	$(PY) -m mypy

bench: $(VENV)/.test-ready
	$(VENV)/bin/anywrap bench

bench-quick: $(VENV)/.test-ready
	$(VENV)/bin/anywrap bench --quick

# The docs site (docs/, tests/docs/): Sphinx with Furo and MyST from the docs extra,
# built into build/docs/html with warnings as errors. Nothing is fetched while it
# builds: no intersphinx, no remote fonts or scripts, math as MathML.
.PHONY: docs
$(VENV)/.docs-ready: pyproject.toml $(VENV)/.demo-ready
	$(PIP) -e ".[docs]"
	touch $@

docs: $(VENV)/.docs-ready
	$(PY) -m sphinx -W --keep-going -q -b html docs build/docs/html
	@echo "docs: build/docs/html/index.html"

clean:
	rm -rf $(VENV) bench-results .pytest_cache .mypy_cache .ruff_cache
