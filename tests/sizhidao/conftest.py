from __future__ import annotations

from pathlib import Path

import pytest

from tests.settlement.backends import BACKENDS, local_postgres, new_ledger  # noqa: F401


@pytest.fixture(params=BACKENDS)
def ledger(request: pytest.FixtureRequest, tmp_path: Path):
    """A new, empty ledger of each engine (an SQLite path or a PostgreSQL URL): the pot's
    postings and its check hold on both."""
    return new_ledger(request.param, tmp_path, request)
