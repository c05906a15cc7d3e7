# The two commands of the README: `make run` and `make test`. Both bootstrap .venv first.
.PHONY: run test lint typecheck bench install

PY = $(shell scripts/bootstrap.sh)

install:
	@scripts/bootstrap.sh >/dev/null

run:
	@$(PY) -m casino.devenv run

test:
	@$(PY) -m casino.devenv test $(ARGS)

lint:
	@$(PY) -m ruff check .
	@$(PY) -m mypy tables/rules
	@cd . && $(PY) -m importlinter.cli lint-imports 2>/dev/null || .venv/bin/lint-imports
