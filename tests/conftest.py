"""Shared test fixtures for the whole station, the markers that `./run.sh test --quick` leaves
out, and the closing summary of where the suite's time went (docs/testing.md)."""

from __future__ import annotations

import time
from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

DATA = Path(__file__).parent / "data"

# Property tests judge what the code answers, never how fast: hypothesis' default 200 ms
# deadline per example failed rules tests while the machine ran a second suite beside them.
settings.register_profile("station", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("station")
TRACES = DATA / "traces"
SHARED_TRACE_NAMES = ("clean_shoe", "noisy_shoe", "order_fault", "mismatch_cancel", "degraded_no_camera")

#: a test that asks for one of these fixtures drives PostgreSQL (a server per worker)
POSTGRES_FIXTURES = {"local_postgres", "studio_ledger"}
#: ... or headless Chromium
BROWSER_FIXTURES = {"browser", "page"}


@pytest.fixture
def data_dir() -> Path:
    return DATA


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark what a test needs from its fixtures, so `--quick` (-m "not browser and not slow
    and not postgres and not soak") never starts a server it left out. A test that reaches
    PostgreSQL or Chromium another way carries the marker itself."""
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        params = getattr(getattr(item, "callspec", None), "params", {})
        if names & POSTGRES_FIXTURES or params.get("ledger") == "postgresql":
            item.add_marker(pytest.mark.postgres)
        if names & BROWSER_FIXTURES:
            item.add_marker(pytest.mark.browser)


# ---- the closing summary: time per test folder (on the controller under pytest-xdist too:
# the workers' reports reach it through this same hook)
_folder_seconds: dict[str, float] = defaultdict(float)
_folder_tests: dict[str, int] = defaultdict(int)
_started = time.monotonic()


def _folder(nodeid: str) -> str:
    path = nodeid.split("::", 1)[0]
    return path.rsplit("/", 1)[0] if "/" in path else "."


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    folder = _folder(report.nodeid)
    _folder_seconds[folder] += report.duration
    if report.when == "call" or (report.when == "setup" and not report.passed):
        _folder_tests[folder] += 1


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    if hasattr(config, "workerinput") or not _folder_seconds:
        return  # a worker: the controller prints the summary
    wall = time.monotonic() - _started
    total = sum(_folder_seconds.values())
    workers = getattr(config.option, "numprocesses", None) or 0
    tr = terminalreporter
    tr.write_sep("=", "test time per folder (setup + call + teardown, summed over workers)")
    for folder, seconds in sorted(_folder_seconds.items(), key=lambda kv: -kv[1]):
        tr.write_line(f"{seconds:8.1f} s {100 * seconds / total:5.1f} %  {_folder_tests[folder]:5d} tests"
                      f"  {folder}")
    tr.write_line(f"{total:8.1f} s test time in {wall:.1f} s wall time"
                  + (f" on {workers} workers" if workers else ""))
