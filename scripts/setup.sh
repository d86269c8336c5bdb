#!/usr/bin/env bash
# Brings a fresh machine to the point where the station runs and its tests pass:
# system libraries (libzbar0 for pyzbar; Chromium for the console's browser tests when
# STATION_SETUP_BROWSER=1), a virtual environment in .venv, and the project installed in it.
# Safe to run again: each step is skipped when already done.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"

log() { echo "[setup] $*" >&2; }
sudo_cmd=""
if [ "$(id -u)" != "0" ]; then sudo_cmd="sudo"; fi
apt_updated=0
apt_install() {
  if ! command -v apt-get >/dev/null 2>&1; then
    log "apt-get not found: install $* by hand"; return 1
  fi
  if [ "$apt_updated" = 0 ]; then
    $sudo_cmd apt-get update -qq >&2 || true
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "$@" >&2
}

# libzbar0: the QR decoder pyzbar loads at run time. The library list is captured first and
# searched after: piped into `grep -q`, grep's early exit would make ldconfig die of SIGPIPE,
# and under pipefail the check would fail (and reach the network) on every run.
have_lib() {
  local libs
  libs="$(ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null || true)"
  [[ "$libs" == *"$1"* ]]
}
if ! have_lib 'libzbar.so.0'; then
  log "installing libzbar0"
  apt_install libzbar0
fi

if [ "${STATION_SETUP_BROWSER:-0}" = 1 ]; then
  if ! command -v chromium >/dev/null 2>&1; then
    log "installing Chromium (browser tests of the supervisor console)"
    apt_install chromium
  fi
fi

# PostgreSQL and nats-server: the studio's ledger and bus (docs/studio.md); the studio's tests
# start their own servers from these binaries. Skipped (no apt) when both are there.
pg_bin_found=0
for d in /usr/lib/postgresql/*/bin; do
  if [ -x "$d/initdb" ] && [ -x "$d/postgres" ]; then pg_bin_found=1; fi
done
studio_missing=()
if [ "$pg_bin_found" = 0 ]; then studio_missing+=(postgresql); fi
if ! command -v nats-server >/dev/null 2>&1; then studio_missing+=(nats-server); fi
if [ "${#studio_missing[@]}" -gt 0 ]; then
  log "installing ${studio_missing[*]} (the studio's ledger and bus)"
  apt_install "${studio_missing[@]}"
fi

py="${PYTHON:-python3}"
if ! "$py" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
  log "Python 3.11 or newer is needed (found $("$py" --version 2>&1))"; exit 1
fi
if [ ! -x .venv/bin/python ]; then
  log "creating .venv"
  "$py" -m venv .venv
fi
stamp=.venv/.station-installed
want="$(cat pyproject.toml | sha256sum | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  log "installing the station and its dependencies into .venv"
  .venv/bin/python -m pip install -q --upgrade pip >&2
  .venv/bin/python -m pip install -q -e '.[dev]' >&2
  echo "$want" > "$stamp"
fi
