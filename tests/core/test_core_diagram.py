"""The committed procedure drawing is the machine the station runs."""

from __future__ import annotations

from pathlib import Path

from station.core.diagram import mermaid, procedure_doc
from station.core.table import STATES, TableCore

DOC = Path(__file__).parents[2] / "docs" / "procedure.md"


def test_committed_diagram_matches_the_machine():
    assert DOC.read_text() == procedure_doc(), "run `station diagram --doc > docs/procedure.md`"


def test_diagram_names_every_state_and_the_pause():
    text = mermaid()
    for s in STATES:
        assert s in text
    assert "paused --> betting: resume" in text


def test_machine_has_no_auto_transitions_and_is_queued():
    core = TableCore()
    assert core.machine.has_queue
    assert not any(t.startswith("to_") for t in core.machine.events)
