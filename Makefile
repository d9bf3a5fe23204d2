# Two commands a learner or a maintainer needs (see README.md):
#   make lab    set up .venv and open the course in JupyterLab at the welcome lesson
#   make test   set up .venv and run the whole test suite
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.stridegrad-installed

.PHONY: lab test lint venv build bench clean

venv: $(STAMP)

# binder/requirements.txt pins what changes the notebooks' stored outputs (NumPy,
# matplotlib, ipywidgets...): the same versions here, on Binder and in CI.
$(STAMP): pyproject.toml binder/requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]' -c binder/requirements.txt
	touch $(STAMP)

lab: $(STAMP)
	$(BIN)/stridegrad lab

test: $(STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks

build: $(STAMP)
	$(BIN)/stridegrad build

bench: $(STAMP)
	$(BIN)/stridegrad bench

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build dist src/*.egg-info
