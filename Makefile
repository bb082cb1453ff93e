# The two commands of the README's quick start: `make demo` and `make test`.
# Each builds its own virtual environment from scratch on a fresh machine.

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install --quiet --disable-pip-version-check

# The package declares ranges (pyproject.toml); the test environment pins what it
# installs. torch goes in first: an open requirement with no torch installed takes
# the newest release, which on Linux is a multi-GB CUDA build. Gymnasium 1.4 is the
# version whose numbers anywrap reproduces (the parity tests).
TORCH ?= 2.13.0
GYMNASIUM ?= 1.4.*

.PHONY: demo test test-compat lint bench bench-quick clean

$(VENV)/.demo-ready: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) --upgrade pip
	$(PIP) "torch==$(TORCH)"
	$(PIP) -e ".[jax,torch,progress,io,record]" "gymnasium==$(GYMNASIUM)" "pygame>=2.1.3" "ale-py>=0.9"
	touch $@

# Everything the test suite touches, so that no test is skipped: every backend
# (torch CPU 2.13.0, jax, tensorflow-cpu, array-api-strict), brax and gymnax;
# the dev extra brings OpenCV and ale-py (Atari, ROMs included) for the image wrappers.
# gymnax 1.0.1 asks gymnasium<1.4: installed in one command with the package, as a
# user would, pip resolves them together (Gymnasium 1.3); the next line then moves
# Gymnasium to 1.4, the parity target, past gymnax's cap (gymnax runs on 1.4).
# The compatibility run below tests gymnax on Gymnasium 1.2 with its cap kept.
# RecordHTML's browser test drives Debian's chromium with Playwright (the dev
# extra); Playwright's own browser download is not used.
# PyTorch's compiled path (tests/backends/test_torch_compile.py) has TorchInductor build
# C++ kernels: it needs a C++ compiler (Debian's g++).
# MuJoCo Playground (the package `playground`) runs through from_brax in
# tests/functional/test_brax.py; it installs beside brax without moving JAX, brax or
# MuJoCo. Brax 0.14.2's ppo.train calls jax.device_put_replicated, which JAX 0.10
# removed: its tests restore it (tests/brax_envs.py), so that the suite stays on the
# newest JAX; JAX 0.9.2 runs it as it is.
$(VENV)/.test-ready: pyproject.toml $(VENV)/.demo-ready
	test -x /usr/bin/chromium || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium)
	test -x /usr/bin/g++ || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq g++)
	$(PIP) -e ".[dev,tf]" brax "gymnax==1.0.1" "playground>=0.2,<0.3"
	$(PIP) "gymnasium==$(GYMNASIUM)"
	touch $@

demo: $(VENV)/.demo-ready
	$(VENV)/bin/anywrap demo

test: $(VENV)/.test-ready lint
	$(PY) -m pytest -n 2 --durations=15 tests

# The compatibility run: the oldest release that each range in pyproject.toml
# admits (COMPAT_TORCH and COMPAT_PINS), installed as a user would install them
# beside an existing torch: torch first, then the package, its extras and gymnax in
# one pip command, which must keep that torch; `pip check` must be clean. It runs
# COMPAT_TESTS: the parity tests against Gymnasium side by side, the torch tests
# with compilation on and off, the functional tests, the checkpoint, image and
# TensorFlow tests (the floors of safetensors, Pillow, OpenCV and tensorflow-cpu),
# tests/packaging (one import test per extra, the built wheel), and
# tests/packaging/test_gymnasium_versions.py (Gymnasium 1.4's numbers on the oldest Gymnasium).
# A test that compares with what Gymnasium changed in 1.4 must fail on the older one
# (OLDER_GYMNASIUM in tests/conftest.py: strict xfail).
# Keep COMPAT_TESTS in step with the test files' names.
COMPAT_VENV ?= .venv-compat
COMPAT_TORCH ?= 2.7.1
COMPAT_PINS ?= "gymnasium==1.2.0" "numpy==2.1.0" "array-api-compat==1.16.0" "jax==0.8.0" \
	"tensorflow-cpu==2.20.0" "safetensors==0.4.0" "pillow==10.0.0" \
	"opencv-python-headless==4.10.0.84" "tqdm==4.60.0"
COMPAT_TESTS ?= tests/packaging tests/contracts/test_same_numbers.py \
	tests/contracts/test_same_numbers_every_backend.py tests/contracts/test_no_sync.py \
	tests/contracts/test_no_sync_stacks.py tests/contracts/test_drop_in_specs.py \
	tests/integrations/test_cleanrl_stack.py tests/integrations/test_phys2d.py \
	tests/wrappers tests/vector tests/transforms tests/xp tests/backends tests/functional \
	tests/test_distributed.py tests/checkpoint/test_checkpoint.py \
	$(addprefix --ignore=tests/,$(NEWEST_GYMNASIUM_TESTS))
# Issue 33's wrappers are Gymnasium 1.4's; their side-by-side tests need it (1.2 has no
# discretisers and no vector RecordVideo, and its others differ): not in the compat run.
NEWEST_GYMNASIUM_TESTS := wrappers/test_record_video.py wrappers/test_discretize.py \
	wrappers/test_noise_and_repeat.py wrappers/test_filter_observation.py \
	wrappers/test_atari_and_render_observation.py vector/test_dict_info_to_list.py \
	vector/test_vectorize.py functional/test_catalogue.py
CPY := $(COMPAT_VENV)/bin/python
CPIP := $(CPY) -m pip install --quiet --disable-pip-version-check

$(COMPAT_VENV)/.compat-ready: pyproject.toml Makefile
	test -x /usr/bin/g++ || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq g++)
	rm -rf $(COMPAT_VENV)
	$(PYTHON) -m venv $(COMPAT_VENV)
	$(CPIP) --upgrade pip
	$(CPIP) "torch==$(COMPAT_TORCH)"
	$(CPIP) -e ".[dev,tf]" brax "gymnax==1.0.1" "playground>=0.2,<0.3" $(COMPAT_PINS)
	$(CPY) -m pip check
	$(CPY) -c "import sys, torch; sys.exit(torch.__version__.split('+')[0] != '$(COMPAT_TORCH)')"
	touch $@

test-compat: $(COMPAT_VENV)/.compat-ready
	$(CPY) -c "from importlib.metadata import version as v; print(*(f'{n} {v(n)}' for n in \
	'gymnasium torch numpy jax tensorflow-cpu safetensors pillow opencv-python-headless gymnax torchrl'.split()))"
	$(CPY) -m pytest -n 2 --durations=10 $(COMPAT_TESTS)

# The stacks users install anywrap beside: pip must resolve each pair in one command
# (a dry run: it reads the package index, installs nothing). Not in CI: each pair
# takes a minute of resolving.
BESIDE ?= '"gymnax==1.0.1"' '"playground" "brax"' '"gymnasium==1.2.*"' '"stable-baselines3"' \
	'"torchrl>=0.14,<0.15"'
.PHONY: check-installs
check-installs: $(VENV)/.demo-ready
	@for pair in $(BESIDE); do echo "anywrap[jax,torch] beside $$pair"; \
	eval $(PY) -m pip install --dry-run --quiet --ignore-installed '".[jax,torch]"' $$pair \
	|| exit 1; done

lint: $(VENV)/.test-ready
	$(PY) -m ruff check src tests benchmarks
	$(PY) -m ruff format --check src tests benchmarks
	$(PY) -m mypy

# The benchmarks (benchmarks/README.md) live beside the package, not in the wheel: they
# run from the checkout's root. BENCH_ARGS adds options, e.g. BENCH_ARGS="--only B1,B3".
bench: $(VENV)/.test-ready
	$(PY) -m benchmarks $(BENCH_ARGS)

bench-quick: $(VENV)/.test-ready
	$(PY) -m benchmarks --quick $(BENCH_ARGS)

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
	rm -rf $(VENV) $(COMPAT_VENV) bench-results .pytest_cache .mypy_cache .ruff_cache
