#!/usr/bin/env bash
# Installs what the tests and benchmarks need on Debian 12, as root, and nothing that is already
# there: redis-server, PostgreSQL 15 with pgvector (built from Debian's own source package, which
# Debian 12 does not ship for PostgreSQL 15), Chromium and Firefox ESR for the SDK's browser tests,
# wrk for the benchmarks, docker-compose to validate compose.yml, curl and jq for the README's
# agent walk-through, which a test runs, and bubblewrap, which isolates sandbox-local's commands
# (docs/sandbox.md). Safe to rerun. Details go to
# $LOG; one line per step goes to stdout.
set -euo pipefail

LOG=${LOG:-/tmp/svc-install-system-deps.log}
PG_MAJOR=${PG_MAJOR:-15}
PG_CONFIG=/usr/lib/postgresql/$PG_MAJOR/bin/pg_config
export DEBIAN_FRONTEND=noninteractive
: > "$LOG"

step() { printf 'install-system-deps: %s\n' "$*"; }
fail() { printf 'install-system-deps: FAILED: %s (details in %s)\n' "$*" "$LOG" >&2; tail -20 "$LOG" >&2; exit 1; }
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

if [ "$(id -u)" != 0 ]; then
  echo "install-system-deps: run as root: sudo bash scripts/install-system-deps.sh" >&2
  exit 1
fi

missing=()
for pkg in redis-server "postgresql-$PG_MAJOR" "postgresql-server-dev-$PG_MAJOR" build-essential chromium firefox-esr wrk docker-compose curl jq bubblewrap; do
  have_pkg "$pkg" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  step "apt-get update"
  apt-get update -q >>"$LOG" 2>&1 || fail "apt-get update"
  step "apt-get install ${missing[*]}"
  apt-get install -y -q --no-install-recommends "${missing[@]}" >>"$LOG" 2>&1 || fail "apt-get install ${missing[*]}"
else
  step "packages already present"
fi

if [ -f "/usr/share/postgresql/$PG_MAJOR/extension/vector.control" ]; then
  step "pgvector already installed for PostgreSQL $PG_MAJOR"
else
  # Debian's pgvector source package (trixie) builds cleanly against PostgreSQL 15.
  mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  mirror=${mirror:-http://deb.debian.org/debian}
  cat > /etc/apt/sources.list.d/svc-trixie-src.sources <<SRC
Types: deb-src
URIs: $mirror
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  step "apt-get update (with trixie deb-src for pgvector)"
  apt-get update -q >>"$LOG" 2>&1 || fail "apt-get update with trixie deb-src"
  have_pkg dpkg-dev || apt-get install -y -q --no-install-recommends dpkg-dev >>"$LOG" 2>&1 || fail "install dpkg-dev"
  work=$(mktemp -d)
  step "building pgvector from Debian's source package"
  (
    cd "$work"
    apt-get source -q pgvector >>"$LOG" 2>&1
    cd "$(find . -maxdepth 1 -type d -name 'pgvector-*' | head -1)"
    make PG_CONFIG="$PG_CONFIG" OPTFLAGS="" >>"$LOG" 2>&1
    make install PG_CONFIG="$PG_CONFIG" >>"$LOG" 2>&1
  ) || fail "pgvector build"
  rm -rf "$work"
  [ -f "/usr/share/postgresql/$PG_MAJOR/extension/vector.control" ] || fail "pgvector did not install"
  step "pgvector installed"
fi
step "done"
