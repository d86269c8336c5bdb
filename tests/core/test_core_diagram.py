"""The committed procedure drawings are the machines the station runs, one per game."""

from __future__ import annotations

from pathlib import Path

import pytest

from station.core.diagram import doc_name, machine_of, mermaid, procedure_doc, states_of
from station.games import GAMES

DOCS = Path(__file__).parents[2] / "docs"
TABLE_GAMES = sorted(name for name, g in GAMES.items() if g.table_procedure() is not None)


@pytest.mark.parametrize("game", TABLE_GAMES)
def test_committed_diagram_matches_the_machine(game):
    doc = DOCS / doc_name(game)
    assert doc.read_text() == procedure_doc(game), \
        f"run `station diagram --game {game} --doc > docs/{doc_name(game)}`"


@pytest.mark.parametrize("game", TABLE_GAMES)
def test_diagram_names_every_state_and_the_pause(game):
    text = mermaid(game=game)
    for s in states_of(game):
        assert s in text
    assert any(line.startswith("    paused --> between_rounds:") and "resume" in line
               for line in text.splitlines())


def test_pokdeng_diagram_resumes_into_betting():
    assert "paused --> betting: resume" in mermaid()


@pytest.mark.parametrize("game", TABLE_GAMES)
def test_machine_has_no_auto_transitions_and_is_queued(game):
    m = machine_of(game)
    assert m.has_queue
    assert not any(t.startswith("to_") for t in m.events)
