# Two commands a learner or a maintainer needs (see README.md):
#   make lab    set up .venv with the course extra and open your copy of the lessons in JupyterLab
#   make test   set up .venv with the dev extra and run the whole test suite
# Without make (Windows): README.md, "Without make", gives the same steps for pip.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
# binder/requirements.txt pins what changes the notebooks' stored outputs (NumPy,
# matplotlib, ipywidgets...): the same versions here, on Binder and in CI.
PIP_INSTALL := $(PY) -m pip install --quiet -c binder/requirements.txt
COURSE := $(VENV)/.stridegrad-course
DEV := $(VENV)/.stridegrad-dev

.PHONY: lab test lint venv build bench conformance clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# what the lessons need: JupyterLab, widgets, plots (the lean install); pip's own lines
# show how far it got (a few minutes the first time), not minutes of silence
$(COURSE): pyproject.toml binder/requirements.txt | $(PY)
	@echo "installing the course's packages into $(VENV) (JupyterLab, ipywidgets, matplotlib; a few minutes the first time) ..."
	$(PY) -m pip install --progress-bar on -c binder/requirements.txt -e '.[course]'
	touch $@

# everything: tests, notebook validation, browser tests, lint, benchmark references
$(DEV): pyproject.toml binder/requirements.txt | $(PY)
	$(PIP_INSTALL) -e '.[dev,bench]'
	touch $(COURSE) $@

venv: $(DEV)

lab: $(COURSE)
	$(BIN)/stridegrad lab

# in parallel, one worker per core (-n auto); each notebook and each test file stays on
# one worker (stridegrad.course.pytest_plugin), so a notebook's cells share one kernel
test: $(DEV)
	$(PY) -m pytest -n auto

lint: $(DEV)
	$(BIN)/ruff check src tests benchmarks

build: $(DEV)
	$(BIN)/stridegrad build

bench: $(DEV)
	$(BIN)/stridegrad bench

# The Array API standard's own test suite against stridegrad.array (slow; not in `make
# test`). Fetches nothing: ARRAY_API_TESTS_DIR must name your checkout of
# data-apis/array-api-tests at tag 2026.02.26 (conformance/README.md says how).
conformance: $(DEV)
	$(PIP_INSTALL) -e '.[conformance]'
	$(PY) conformance/run.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build dist src/*.egg-info
