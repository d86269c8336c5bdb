#!/usr/bin/env bash
# The station's two front doors.
#   ./run.sh demo [options]   a whole simulated table (shoe, camera, dealer, bettors, console)
#   ./run.sh test [pytest args]   every test
#   ./run.sh station ...      any `station` subcommand inside the project's environment
# Each call first makes sure the environment exists (scripts/setup.sh is idempotent and fast
# when nothing changed).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
cmd="${1:-}"
shift || true
case "$cmd" in
  demo)
    bash scripts/setup.sh
    exec .venv/bin/station demo "$@"
    ;;
  test)
    STATION_SETUP_BROWSER=1 bash scripts/setup.sh
    exec .venv/bin/python -m pytest "$@"
    ;;
  station)
    bash scripts/setup.sh
    exec .venv/bin/station "$@"
    ;;
  bench)
    bash scripts/setup.sh
    exec .venv/bin/python -m bench "$@"
    ;;
  *)
    echo "usage: ./run.sh demo|test|station|bench [args]" >&2
    exit 2
    ;;
esac
