# Two commands for a newcomer: `make serve` (or `make build`) and `make test`;
# `make check` is the quick loop while working (see below).
# Each makes .venv with the pinned packages the first time.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install lock serve build check test bench wasm

# The locked packages first, each file checked against its sha256
# (requirements.lock), then toycalc itself, editable, with nothing more:
# its build uses the locked setuptools, not one fetched for the build.
$(STAMP): pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $@

install: $(STAMP)

# requirements.lock (and requirements-bench.lock) written again from
# pyproject.toml's pins, with their hashes: after a pin changed.
lock:
	$(PYTHON) .ci/lock.py

# make serve PORT=8001 when 8000 is taken (then one line says so, not a traceback).
PORT ?= 8000
serve: $(STAMP)
	@$(BIN)/python -c 'import socket; socket.socket().bind(("127.0.0.1", $(PORT)))' 2>/dev/null || \
	  { echo "make serve: port $(PORT) is taken (another make serve?): make serve PORT=8001" >&2; exit 1; }
	$(BIN)/mkdocs serve --dev-addr 127.0.0.1:$(PORT)

build: $(STAMP)
	$(BIN)/mkdocs build --strict

# Both spread the tests over the machine's two cores (pytest-xdist), a
# file's tests on one worker, so that each file's shared fixtures are made
# once; the files in the order tests/conftest.py gives them (the longest
# first), not xdist's (the most tests first, which left the one-test
# trainings for the end).
PYTEST := $(BIN)/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder

# The model, book and site tests on the one shared build, without a
# browser, the builds of their own, the retraining or the checks marked
# long (pyproject.toml's markers): under a minute on 2 cores (about 50 s).
# `make test` runs everything, as CI does. One BLAS thread a worker: two
# workers of two threads each on two cores waited on each other (make check
# took 59 to 66 s so, 53 to 55 s with one, runs alternated). Python's
# compiled files kept, as Python does unless told not to (an environment
# that says PYTHONDONTWRITEBYTECODE): each worker collected the tests in
# 2.7 s without them, 0.9 s with.
check: $(STAMP)
	PYTHONDONTWRITEBYTECODE= OPENBLAS_NUM_THREADS=1 $(PYTEST) -q --ignore=tests/browser -m "not build and not browser and not train and not long"

test: $(STAMP)
	$(PYTEST)

# The benchmarks (scripts printing figures with their goals; see README).
# PyTorch, for train_speed.py's side-by-side:
# .venv/bin/pip install --require-hashes -r requirements-bench.lock
bench: $(STAMP)
	$(BIN)/python benchmarks/page_load.py
	$(BIN)/python benchmarks/simulator_speed.py
	$(BIN)/python benchmarks/build_speed.py
	$(BIN)/python benchmarks/train_speed.py --full
	$(BIN)/python benchmarks/train_step_node.py
	$(BIN)/python benchmarks/writer_speed.py

# docs/javascripts/kernels.wasm from kernels.wat, its text (nano-gpt's
# training in the browser): after an edit of the .wat, commit both
# (tests/book/test_kernels.py holds them equal).
wasm: $(STAMP)
	$(BIN)/python -c 'import pathlib, wasmtime; d = pathlib.Path("docs/javascripts"); \
	  (d / "kernels.wasm").write_bytes(wasmtime.wat2wasm((d / "kernels.wat").read_text(encoding="utf-8")))'
