# One set-up path: a .venv with the locked stack (requirements/lock.txt) and the package, editable.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install demo quickstart notebook test test-all bench experiments clean

$(STAMP): requirements/lock.txt setup.cfg
	@command -v $(PYTHON) >/dev/null || { echo "Python 3.11 is required (set PYTHON=...)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements/lock.txt
	$(BIN)/pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	$(BIN)/pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e client
	touch $(STAMP)

install: $(STAMP)

## A first look at the world (the main job is `quickstart`): the scripted expert plays 6 goals,
## the partner describes each final state; GIFs in outputs/demo/.
demo: $(STAMP)
	$(BIN)/imagine-tf demo --out-dir outputs/demo

## The main job (the README's quick start, with `make test`): a short IMAGINE run (MA policy,
## learned MA reward, configs/agent/quickstart.gin), then 10 evaluation episodes per goal.
## Writes runs/quickstart/{learning_curve.png,agent.gif,eval.json}.
quickstart: $(STAMP)
	$(BIN)/imagine-tf train --gin-file configs/agent/quickstart.gin --root-dir runs/quickstart
	$(BIN)/imagine-tf eval --root-dir runs/quickstart --repetitions 10

## The tour (notebooks/tour.ipynb: the world, the partner, the pretrained agent and its reward
## model, imagination, a local server) in Jupyter. The first time, installs Jupyter's server and
## web UI into .venv (requirements/notebook.txt; the kernel's packages are in the lock).
NOTEBOOK_STAMP := $(VENV)/.notebook-installed
$(NOTEBOOK_STAMP): $(STAMP) requirements/notebook.txt
	$(BIN)/pip install --quiet --disable-pip-version-check -c requirements/lock.txt -r requirements/notebook.txt
	touch $(NOTEBOOK_STAMP)

notebook: $(NOTEBOOK_STAMP)
	$(BIN)/jupyter-notebook $$([ "$$(id -u)" = 0 ] && echo --allow-root) notebooks/tour.ipynb

## Tests (slow ones deselected by setup.cfg; integration = real servers on 127.0.0.1, included),
## on TEST_WORKERS processes (pytest-xdist), a test module per worker at a time. A single file
## runs on its own: .venv/bin/python -m pytest tests/env/physics_test.py
## The package's bytecode is compiled first: the ~60 Python processes that tests start would
## each compile what they import again where PYTHONDONTWRITEBYTECODE is set.
TEST_WORKERS ?= 2
BYTECODE = $(BIN)/python -m compileall -q imagine_tf serving client datasets tests
test: $(STAMP)
	$(BYTECODE)
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

test-all: $(STAMP)
	$(BYTECODE)
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder -m ""

## Every benchmark, each writing its record in docs/results/ (on 2 cores;
## run it on an otherwise idle machine). The 50,000-episode Beam comparison needs > 16 GB of
## memory: imagine-tf bench dataset --beam-workers 2 --out docs/results/dataset_beam_bench.json
bench: $(STAMP)
	$(BIN)/imagine-tf bench env --out docs/results/env_bench.json
	$(BIN)/imagine-tf bench dataset --out docs/results/dataset_bench.json
	$(BIN)/imagine-tf bench dataset --beam-workers 2 --num-episodes 10000 --out docs/results/dataset_beam_bench_10k.json
	$(BIN)/imagine-tf bench train --out docs/results/epoch_bench.json
	$(BIN)/imagine-tf bench distributed --out docs/results/distributed_bench.json
	$(BIN)/imagine-tf bench serving --out docs/results/serving_bench.json

## Every multi-seed experiment of docs/experiments.md into runs/experiments/, then its report in
## docs/results/experiments/. Resumable: run it again after a stop. Many hours on 2 cores
## (docs/experiments.md adds up the recorded seconds); PARALLEL cells at once, one thread each.
PARALLEL ?= 2
experiments: $(STAMP)
	$(BIN)/imagine-tf dataset build
	for name in reward_architectures architectures objects two_object imagination imagination_reference; do \
		$(BIN)/imagine-tf experiment $$name --parallel $(PARALLEL) || exit 1; done
	$(BIN)/imagine-tf experiment types --report
	$(BIN)/imagine-tf experiment reward_types --report

clean:
	rm -rf $(VENV) outputs runs .pytest_cache
