"""The player refs a Si Zhi Dao table keeps to answer a retried action: bounded, newest kept
(a game outlasts its shoes, so they were never cleared and grew inside every snapshot)."""

from __future__ import annotations

import pickle

from station.core.inputs import Input
from station.core.kernel import TableKernel
from station.core.settings import TableSettings
from station.games.sizhidao.procedure import REFS_KEPT


def _leave(k: TableKernel, t_us: int, ref: str) -> list[dict]:
    k.apply(Input(t_us, "player", {"account": "u1", "action": "leave", "ref": ref}))
    return k.take_outputs()[0]


def test_the_refs_kept_are_bounded_and_a_recent_retry_is_still_answered_once() -> None:
    k = TableKernel(TableSettings(table="SZ-01", game="sizhidao"))
    first = _leave(k, 1_000, "r0")
    assert [r["type"] for r in first] == ["action_refused"]  # u1 holds no seat
    sizes = []
    for n in range(1, 2 * REFS_KEPT + 1):
        _leave(k, 1_000 + n * 1_000, f"r{n}")
        if n in (REFS_KEPT, 2 * REFS_KEPT):
            sizes.append(len(pickle.dumps(k)))
    assert len(k.proc.refs) == REFS_KEPT
    # twice the actions, the same snapshot (a few bytes of longer refs aside)
    assert sizes[1] < sizes[0] * 1.05, sizes
    # the newest ref is still known: its retry records nothing and gets the first answer
    newest = f"r{2 * REFS_KEPT}"
    answer = k.proc.refs[("u1", newest)]
    assert _leave(k, 10**10, newest) == []
    assert k.proc.last_answer == answer
    # the oldest is forgotten: that action is the table's to decide again
    assert ("u1", "r0") not in k.proc.refs
    assert [r["type"] for r in _leave(k, 10**10 + 1, "r0")] == ["action_refused"]
