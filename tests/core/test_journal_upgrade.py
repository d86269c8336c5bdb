"""A journal written before the kernel split still recovers (tests/data/journals/README.md)."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

from station.core.journal import Journal
from station.core.replay import settings_from_header
from station.live.table_station import TableStation

OLD = Path(__file__).parents[1] / "data" / "journals" / "pokdeng_before_kernel.sqlite"


def test_a_journal_from_before_the_split_recovers_and_carries_on(tmp_path, caplog):
    path = tmp_path / "journal.sqlite"
    shutil.copy(OLD, path)
    header = Journal(path).header
    before = Journal(path).stored_records()
    stored = len(before)
    first = TableStation(settings_from_header(header), path)
    with caplog.at_level(logging.WARNING, logger="station.live"):
        # re-applies every input and checks each re-made record: raises if one differs
        assert first.recover() == 458
    assert "another station version" in caplog.text
    assert first.core.state == "revealing"  # round 3, waiting for the camera at reveal
    first.journal.close()
    st = TableStation(settings_from_header(header), path)
    st.start()
    try:
        records = st.submit("supervisor", "end_shoe", "sup1")
        assert records[0]["type"] == "action_refused"  # a round is in progress
        st.submit("wallet", {"account": "late", "balance": 10})
        assert st.core.balances["late"] == 10
    finally:
        st.stop()
    after = Journal(path).stored_records()
    assert after[:stored] == before  # nothing lost or rewritten
    assert any(r["type"] == "action_refused" for r in after[stored:])
