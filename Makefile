# The two commands of the README: `make run` and `make test` (and `make manage` beside a running `make run`).
# All bootstrap .venv first.
.PHONY: run test lint install manage ha

PY = $(shell scripts/bootstrap.sh)

install:
	@scripts/bootstrap.sh >/dev/null

run:
	@$(PY) -m devtools.devenv run

test:
	@$(PY) -m devtools.devenv test $(ARGS)

# the high-availability set on this machine (root): etcd, three PostgreSQL members under Patroni, HAProxy, until Ctrl-C
ha:
	@$(PY) -m devtools.ha up $(ARGS)

# any manage.py command against the running `make run`: make manage ARGS="verify_hands --all"
manage:
	@$(PY) -m devtools.devenv manage $(ARGS)

lint:
	@$(PY) -m ruff check .
	@$(PY) -m mypy --strict gamemath rules
	@.venv/bin/lint-imports
	@.venv/bin/hadolint --failure-threshold info Dockerfile
