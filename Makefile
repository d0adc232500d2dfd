# Two commands for a newcomer: `make serve` (or `make build`) and `make test`.
# Each makes .venv with the pinned packages the first time.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install serve build test bench

$(STAMP): pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -c requirements.lock -e '.[test]'
	touch $@

install: $(STAMP)

serve: $(STAMP)
	$(BIN)/mkdocs serve

build: $(STAMP)
	$(BIN)/mkdocs build --strict

test: $(STAMP)
	$(BIN)/python -m pytest

# The benchmarks (scripts printing figures with their goals; see README).
# PyTorch, for train_speed.py's side-by-side: pip install -e '.[bench]'.
bench: $(STAMP)
	$(BIN)/python benchmarks/page_load.py
	$(BIN)/python benchmarks/simulator_speed.py
	$(BIN)/python benchmarks/build_speed.py
	$(BIN)/python benchmarks/train_speed.py --full
