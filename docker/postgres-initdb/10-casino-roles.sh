#!/usr/bin/env bash
# The casino's two database roles (docs/architecture.md, "Database roles"), created by the PostgreSQL image on
# its first start (/docker-entrypoint-initdb.d) as the image's superuser. Idempotent: on a volume initialised
# before the roles existed, run it once by hand (docs/security.md):
#   docker compose exec db bash /docker-entrypoint-initdb.d/10-casino-roles.sh
#
# - owner (DB_OWNER_ROLE, default casino_owner): owns the database, its public schema and every object in it;
#   `migrate` connects as it (MIGRATE_DATABASE_URL). Not a superuser.
# - application (DB_APP_ROLE, default casino_app): web, workers and beat (DATABASE_URL). Not a superuser, owns
#   nothing; `migrate` grants it its privileges on every table after each run (backoffice/dbroles.py).
set -euo pipefail
: "${DB_OWNER_PASSWORD:?set DB_OWNER_PASSWORD}" "${DB_APP_PASSWORD:?set DB_APP_PASSWORD}"

psql -v ON_ERROR_STOP=1 --no-psqlrc --username "${POSTGRES_USER:-postgres}" --dbname "${POSTGRES_DB:-casino}" \
  --set owner="${DB_OWNER_ROLE:-casino_owner}" --set app="${DB_APP_ROLE:-casino_app}" \
  --set owner_password="$DB_OWNER_PASSWORD" --set app_password="$DB_APP_PASSWORD" <<'SQL'
SELECT format('CREATE ROLE %I', :'owner') WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'owner') \gexec
SELECT format('CREATE ROLE %I', :'app') WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'app') \gexec
ALTER ROLE :"owner" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD :'owner_password';
ALTER ROLE :"app" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD :'app_password';
SELECT format('ALTER DATABASE %I OWNER TO %I', current_database(), :'owner') \gexec
ALTER SCHEMA public OWNER TO :"owner";
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO :"app";
-- objects created before the roles existed (an older volume) pass to the owner
SELECT format('ALTER TABLE public.%I OWNER TO %I', c.relname, :'owner')
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND c.relowner <> to_regrole(:'owner') \gexec
SELECT format('ALTER SEQUENCE public.%I OWNER TO %I', c.relname, :'owner')
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = 'public' AND c.relkind = 'S' AND c.relowner <> to_regrole(:'owner') \gexec
SELECT format('ALTER ROUTINE %s OWNER TO %I', p.oid::regprocedure, :'owner')
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
  WHERE n.nspname = 'public' AND p.proowner <> to_regrole(:'owner') \gexec
SQL
if [ -n "${DB_SIGNER_PASSWORD:-}" ]; then  # the checkpoint signer (docs/security.md); `migrate` grants it
  psql -v ON_ERROR_STOP=1 --no-psqlrc --username "${POSTGRES_USER:-postgres}" --dbname "${POSTGRES_DB:-casino}" \
    --set signer="${DB_SIGNER_ROLE:-casino_signer}" --set signer_password="$DB_SIGNER_PASSWORD" <<'SQL'
SELECT format('CREATE ROLE %I', :'signer') WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'signer') \gexec
ALTER ROLE :"signer" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD :'signer_password';
SQL
fi
if [ -n "${DB_CASHIER_PASSWORD:-}" ]; then  # the cashier (ledger/cashier_role.py): deposits, withdrawals, corrections
  psql -v ON_ERROR_STOP=1 --no-psqlrc --username "${POSTGRES_USER:-postgres}" --dbname "${POSTGRES_DB:-casino}" \
    --set cashier="${DB_CASHIER_ROLE:-casino_cashier}" --set cashier_password="$DB_CASHIER_PASSWORD" <<'SQL'
SELECT format('CREATE ROLE %I', :'cashier') WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'cashier') \gexec
ALTER ROLE :"cashier" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD :'cashier_password';
SQL
fi
if [ -n "${DB_REPLICATION_PASSWORD:-}" ]; then  # the standby's (docs/reliability.md, "Failover"): replication only
  psql -v ON_ERROR_STOP=1 --no-psqlrc --username "${POSTGRES_USER:-postgres}" --dbname "${POSTGRES_DB:-casino}" \
    --set replicator="${DB_REPLICATION_ROLE:-replicator}" --set replicator_password="$DB_REPLICATION_PASSWORD" <<'SQL'
SELECT format('CREATE ROLE %I', :'replicator') WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'replicator') \gexec
ALTER ROLE :"replicator" LOGIN REPLICATION NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS PASSWORD :'replicator_password';
SQL
  hba="host replication ${DB_REPLICATION_ROLE:-replicator} all scram-sha-256"
  grep -qxF "$hba" "$PGDATA/pg_hba.conf" || echo "$hba" >> "$PGDATA/pg_hba.conf"
fi
echo "casino database roles ready: owner ${DB_OWNER_ROLE:-casino_owner}, application ${DB_APP_ROLE:-casino_app}"
