# Two commands matter: `make run` and `make test`. Both install into .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
PORT ?= 8501

.PHONY: setup run test lint eval bench clean-data

setup: $(STAMP)

$(STAMP): requirements.txt requirements-dev.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	$(BIN)/pip install --quiet --disable-pip-version-check --no-deps -e .
	touch $(STAMP)

# Starts the embedded database, indexes docs/ when the store is empty, serves the app.
run: setup
	$(BIN)/docsassistant bootstrap
	$(BIN)/streamlit run app.py --server.port $(PORT) --server.headless true \
		--browser.gatherUsageStats false

test: setup
	$(BIN)/pytest

lint: setup
	$(BIN)/ruff check .

# Evaluation and benchmarks on the shared data (not part of `make test`).
SHARED ?= ../shared/data
eval: setup
	DOCSASSISTANT_DATA_DIR=.data-bench $(BIN)/docsassistant eval search --qa $(SHARED)/qa/docs_qa_dev.jsonl --corpus $(SHARED)/corpus

# Uses its own data folder so the app's store is left alone.
bench: setup
	DOCSASSISTANT_DATA_DIR=.data-bench $(BIN)/docsassistant bench ingest $(SHARED)/corpus --prefix "" --keep
	DOCSASSISTANT_DATA_DIR=.data-bench $(BIN)/docsassistant bench search --qa $(SHARED)/qa/docs_qa_dev.jsonl \
		--synthetic 100000

clean-data:
	$(BIN)/docsassistant db down || true
	rm -rf .data
