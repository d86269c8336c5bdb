#!/usr/bin/env bash
# The station's two front doors.
#   ./run.sh demo [options]   a whole simulated table (shoe, camera, dealer, bettors, console)
#   ./run.sh test [pytest args]   every test (--quick: the fast ones; docs/testing.md)
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
    # Every test, on parallel workers (pytest-xdist; each worker keeps its own ports, folders,
    # PostgreSQL and nats-server: docs/testing.md), closing with the 25 slowest tests and the
    # time per test folder. `--quick` keeps the fast tests of every part: no browser, no
    # PostgreSQL, no soak, no slow drill. STATION_TEST_WORKERS=N sets the workers (0: none).
    marks=()
    args=()
    for a in "$@"; do
      if [ "$a" = --quick ]; then
        marks=(-m "not browser and not slow and not postgres and not soak")
      else
        args+=("$a")
      fi
    done
    # twice the cores: much of a test's time is spent waiting on its servers and processes
    workers="${STATION_TEST_WORKERS:-$(( $(nproc) * 2 ))}"
    par=()
    if [ "$workers" != 0 ]; then par=(-n "$workers" --dist worksteal); fi
    exec .venv/bin/python -m pytest "${par[@]}" --durations=25 "${marks[@]}" "${args[@]}"
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
