#!/usr/bin/env bash
# Makes sure a PostgreSQL server answers on 127.0.0.1:$FINWATCH_CI_PG_PORT (default 5432) with a
# `test` database the suite can log in to, and prints that database's URL as the last line.
#
# - A server that is not running is started; where none is installed, Debian's `postgresql`
#   package is installed and its cluster created and started.
# - Debian's clusters authenticate local connections by peer and TCP by scram-sha-256, so a
#   passwordless `postgres@127.0.0.1` (what development machines with trust auth accept) is refused
#   there. When that is the case, a `finwatch_ci` role is given a fresh random password over the
#   Unix socket (peer auth as the `postgres` system user) and the URL carries it.
# Everything except the URL goes to stderr.
set -euo pipefail

port="${FINWATCH_CI_PG_PORT:-5432}"
log() { printf '== %s\n' "$*" >&2; }

ready() { pg_isready -q -h 127.0.0.1 -p "$port"; }
# -w: never prompt for a password (CI has no standard input).
can_login() { PGCONNECT_TIMEOUT=5 psql -w -X -q -tA "$1" -c 'SELECT 1' >/dev/null 2>&1; }
as_postgres() { su postgres -s /bin/sh -c "$*"; }

if ! ready; then
  if ! command -v pg_ctlcluster >/dev/null 2>&1; then
    log "installing PostgreSQL (Debian package)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  fi
  cluster=$(pg_lsclusters -h | awk -v p="$port" '$3 == p { print $1 " " $2; exit }')
  if [ -z "$cluster" ]; then
    version=$(ls /etc/postgresql 2>/dev/null | sort -V | tail -1)
    [ -n "$version" ] || version=$(ls /usr/lib/postgresql | sort -V | tail -1)
    log "creating cluster $version/finwatch on port $port"
    pg_createcluster "$version" finwatch --port "$port" >/dev/null
    cluster="$version finwatch"
  fi
  log "starting PostgreSQL cluster $cluster on port $port"
  # shellcheck disable=SC2086 # "version name" splits into two arguments on purpose.
  pg_ctlcluster --skip-systemctl-redirect $cluster start || true
  for _ in $(seq 1 30); do ready && break; sleep 1; done
  ready || { log "PostgreSQL did not come up on port $port"; exit 1; }
fi

url="postgresql://postgres@127.0.0.1:$port"
if ! can_login "$url/postgres"; then
  log "passwordless login refused (peer/scram cluster): using role finwatch_ci with a new password"
  password=$(od -An -N18 -tx1 /dev/urandom | tr -d ' \n')
  as_postgres "psql -X -q -p $port -v ON_ERROR_STOP=1" >/dev/null <<SQL
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'finwatch_ci') THEN
    CREATE ROLE finwatch_ci LOGIN SUPERUSER;
  END IF;
END \$\$;
ALTER ROLE finwatch_ci PASSWORD '$password';
SQL
  url="postgresql://finwatch_ci:$password@127.0.0.1:$port"
  can_login "$url/postgres" || { log "cannot log in to PostgreSQL on port $port"; exit 1; }
fi

if [ "$(psql -w -X -tA "$url/postgres" -c "SELECT 1 FROM pg_database WHERE datname = 'test'")" != 1 ]; then
  psql -w -X -q "$url/postgres" -c 'CREATE DATABASE test' >/dev/null
fi
echo "$url/test"
