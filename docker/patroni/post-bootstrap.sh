#!/usr/bin/env bash
# Patroni's post_bootstrap: run once, on the member that initialised the cluster (the primary), before any other
# member copies it. The casino's database, its roles (docker/postgres-initdb/10-casino-roles.sh, the same script
# the single-server image runs) and pgBackRest's stanza. Patroni made the replication role itself.
set -euo pipefail
export PGHOST=/var/run/postgresql POSTGRES_USER=postgres POSTGRES_DB=casino
psql -v ON_ERROR_STOP=1 --no-psqlrc --username postgres --dbname postgres -c "CREATE DATABASE casino"
env -u DB_REPLICATION_PASSWORD PGDATA=/var/lib/postgresql/data/pgdata bash /usr/local/bin/casino-roles
pgbackrest --stanza=casino stanza-create || echo "pgBackRest: stanza-create failed (create it by hand: docs/operations.md)"
