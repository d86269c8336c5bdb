"""Shared test fixtures for the whole station."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
TRACES = DATA / "traces"
SHARED_TRACE_NAMES = ("clean_shoe", "noisy_shoe", "order_fault", "mismatch_cancel", "degraded_no_camera")


@pytest.fixture
def data_dir() -> Path:
    return DATA
