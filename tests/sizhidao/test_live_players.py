"""Players through the live station (PROCEDURE.md §7.1, §7.10): a real `TableStation` on a
journal file, its player API over real HTTP. Actions are journaled inputs answered with what
the table made of them (200, or 409 with the refusal and its reason); the platform's key is
required; the shape is checked before anything is recorded; a retried ref is applied once,
also after a restart; each account's view and stream carry its own cards and never another
account's; a restart re-applies the journal and the game carries on to its settlement."""

from __future__ import annotations

import json

import httpx
import pytest

from station.core.journal import Journal
from station.games.sizhidao.script import SzTraceScript
from tests.sizhidao.live_table import KEY, LiveTable, StreamReader
from tests.sizhidao.staged_games import BEATEN, TIE1, TIE3

HANDS = {"S1": TIE1, "S2": "KS KH KD KC".split(), "S3": TIE3, "S4": BEATEN}
SEATS = dict(zip("abcd", ("S1", "S2", "S3", "S4"), strict=True))


@pytest.fixture
def live(tmp_path):
    table = LiveTable(tmp_path / "journal.sqlite").start()
    try:
        yield table
    finally:
        table.stop()


def stream(live: LiveTable, account: str, until: str | None = None) -> StreamReader:
    return StreamReader(f"{live.url}/v1/players/{account}/stream",
                        {"authorization": f"Bearer {KEY}"}, until)


def seat_four(live: LiveTable, s: SzTraceScript) -> int:
    for acc in "abcd":
        s.wallet(acc, 10_000)
    n = live.feed(s)
    for acc, seat in SEATS.items():
        r = live.post({"account": acc, "action": "sit", "seat": seat})
        assert r.status_code == 200, r.text
        assert [x["type"] for x in r.json()["records"]] == ["seated"]
    return n


def test_actions_are_journaled_answered_and_private_cards_reach_their_owner(live) -> None:
    s = SzTraceScript(table="SZ-07")
    readers = {a: stream(live, a) for a in "ab"}
    n = seat_four(live, s)
    # refusals: the first reason that applies, with the account and the action
    r = live.post({"account": "e", "action": "sit", "seat": "S1"})
    assert r.status_code == 409
    assert r.json().items() >= {"error": "action_refused", "type": "action_refused",
                                "account": "e", "action": "sit", "reason": "seat_taken"}.items()
    assert live.post({"account": "a", "action": "sit", "seat": "S5"}).json()["reason"] == "already_seated"
    assert live.post({"account": "e", "action": "sit", "seat": "S9"}).json()["reason"] == "bad_seat"
    assert live.post({"account": "e", "action": "dance"}).json()["reason"] == "bad_action"
    assert live.post({"account": "e", "action": "leave"}).json()["reason"] == "not_seated"
    # the platform's key, and the shape, before anything is recorded
    journal_inputs = len(list(Journal(live.journal).inputs(0)))
    assert live.post({"account": "a", "action": "sit", "seat": "S5"}, key="wrong").status_code == 401
    assert live.post({"account": "a", "action": "sit", "seat": "S5"}, key=None).status_code == 401
    assert live.post({"account": "a", "action": "sit", "bogus": 1}).status_code == 422
    assert live.post({"account": "", "action": "sit"}).status_code == 422
    assert live.post({"account": "a" * 65, "action": "sit"}).status_code == 422
    assert live.post([1, 2]).status_code == 422
    bad = httpx.post(live.url + "/v1/players/actions", content=b"{",
                     headers={"authorization": f"Bearer {KEY}"})
    assert bad.status_code == 400
    huge = httpx.post(live.url + "/v1/players/actions", content=b" " * 10_000,
                      headers={"authorization": f"Bearer {KEY}"})
    assert huge.status_code == 413
    assert len(list(Journal(live.journal).inputs(0))) == journal_inputs

    s.wait(1).dealer("open_betting").wait(1).shuffle().deal(HANDS, leader="S1")
    n = live.feed(s, n)
    # the owner's view shows its cards; another's view shows counts only
    view_a, view_b = live.view("a"), live.view("b")
    assert view_a["you"] == {"account": "a", "seat": "S1", "cards": TIE1,
                             "deal_id": "SZ-07-G1-D1"}
    assert view_b["you"]["cards"] == HANDS["S2"]
    assert not any(f'"{c}"' in json.dumps(view_a) for c in HANDS["S2"] + TIE3 + BEATEN)
    assert not any(f'"{c}"' in json.dumps(view_b) for c in TIE1 + TIE3 + BEATEN)
    assert live.view("stranger")["you"]["cards"] == []
    assert view_a["game"]["deal"]["cards"] == {"S1": 4, "S2": 4, "S3": 4, "S4": 4}
    assert view_a["game"]["deal"]["turn"] == "S1" and view_a["game"]["pot"] == 400

    # betting through the API, with a retried ref answered once
    r = live.post({"account": "a", "action": "bet", "amount": 300, "ref": "a-1"})
    assert r.status_code == 200, r.text
    (rec,) = [x for x in r.json()["records"] if x["type"] == "player_action"]
    assert (rec["action"], rec["amount"], rec["total"], rec["seat"]) == ("bet", 200, 300, "S1")
    again = live.post({"account": "a", "action": "bet", "amount": 300, "ref": "a-1"})
    assert again.status_code == 200 and again.json() == r.json()
    assert live.post({"account": "c", "action": "call"}).json()["reason"] == "not_your_turn"
    assert live.post({"account": "b", "action": "bet", "amount": 900}).json()["reason"] == "bad_action"
    assert live.post({"account": "b", "action": "raise", "amount": "lots"}).json()["reason"] == "bad_amount"
    assert live.post({"account": "b", "action": "raise", "amount": 350}).json()["reason"] == "raise_too_small"
    for acc in "bcd":
        assert live.post({"account": acc, "action": "call"}).status_code == 200
    assert live.station.core.balances["a"] == 9700
    r = live.post({"account": "a", "action": "arrange", "front": ["3D", "3C"], "back": ["9H", "QS"]})
    assert r.status_code == 409 and r.json()["reason"] == "front_above_back"
    assert "9H" not in r.text and "3D" not in r.text  # a refusal never repeats the cards
    r = live.post({"account": "a", "action": "arrange", "front": ["KS", "KH"], "back": ["KD", "KC"]})
    assert r.json()["reason"] == "bad_cards" and "KS" not in r.text
    r = live.post({"account": "a", "action": "arrange", "front": [{"x": 1}, 7], "back": "9H"})
    assert r.json()["reason"] == "bad_cards"
    r = live.post({"account": "a", "action": "arrange", "front": ["9H", "QS"], "back": ["3D", "3C"]})
    assert r.status_code == 200
    (rec,) = r.json()["records"]
    assert rec["action"] == "arrange" and rec["auto"] is False and "9H" not in r.text
    assert live.post({"account": "a", "action": "arrange", "front": ["9H", "QS"],
                      "back": ["3D", "3C"]}).json()["reason"] == "already_arranged"

    s.at_least(live.clock.t + 10.5).reveal(HANDS).clear()
    live.feed(s, n)
    settled = [r for r in live.records if r["type"] == "game_settled"]
    assert settled and settled[0]["payouts"] == {"b": 1200}
    for reader in readers.values():
        assert reader.wait_for("game_settled")
        reader.stop()
    for acc in "ab":
        seat = SEATS[acc]
        events = readers[acc].events
        assert events and events[0][0] == "view"
        recs = readers[acc].records()
        privates = [d for d in recs if d["type"] == "private"]
        assert len(privates) == 4
        assert all(p["account"] == acc and p["seat"] == seat for p in privates)
        assert privates[-1]["cards"] == HANDS[seat]
        assert any(d["type"] == "game_settled" for d in recs)
        # every public record of the table reached the stream, in order
        public = [r for r in live.records if r["type"] != "private"]
        assert [r for r in recs if r["type"] != "private"] == public
        # before the showdown nothing in this stream names another seat's card
        other = [c for s_, cs in HANDS.items() if s_ != seat for c in cs]
        before = []
        for e, d in events:
            if e == "record" and d["type"] == "showdown":
                break
            before.append(d)
        assert not any(f'"{c}"' in json.dumps(before) for c in other)
    # journaled: the player actions are inputs of the journal, in the order they came
    actions = [i.value for _, i in Journal(live.journal).inputs(0) if i.kind == "player"]
    assert actions[0] == {"account": "a", "action": "sit", "seat": "S1"}
    assert {"account": "a", "action": "bet", "amount": 300, "ref": "a-1"} in actions


def test_a_restart_recovers_from_the_journal_and_the_game_carries_on(tmp_path) -> None:
    live = LiveTable(tmp_path / "journal.sqlite").start()
    s = SzTraceScript(table="SZ-07")
    try:
        n = seat_four(live, s)
        s.wait(1).dealer("open_betting").wait(1).shuffle().deal(HANDS, leader="S1")
        n = live.feed(s, n)
        first = live.post({"account": "a", "action": "bet", "amount": 400, "ref": "r-1"})
        assert first.status_code == 200
        assert live.post({"account": "b", "action": "call", "ref": "r-2"}).status_code == 200
        before = live.view("a")
        t = live.clock.t
    finally:
        live.stop()
    # the station restarts on its journal: the same table, the same answers
    live = LiveTable(tmp_path / "journal.sqlite")
    live.clock.t = t
    live.start()
    try:
        assert live.station.inputs_applied > 0
        after = live.view("a")
        for key in ("seats", "leader", "game"):
            assert after[key] == before[key]
        assert after["you"]["cards"] == TIE1
        again = live.post({"account": "a", "action": "bet", "amount": 400, "ref": "r-1"})
        assert again.status_code == 200 and again.json() == first.json()  # nothing twice
        assert live.station.core.balances["a"] == 9600 and live.station.core.balances["b"] == 9600
        assert live.post({"account": "c", "action": "fold"}).status_code == 200
        assert live.post({"account": "d", "action": "call"}).status_code == 200
        s.at_least(t + 11).reveal({k: HANDS[k] for k in ("S1", "S2", "S4")}).clear()
        live.feed(s, n)
        settled = [r for r in live.records if r["type"] == "game_settled"]
        assert len(settled) == 1 and settled[0]["payouts"] == {"b": 1300}
        assert settled[0]["pot"] == 1300
        assert sum(live.station.core.balances[a] for a in "abcd") == 40_000
    finally:
        live.stop()


def test_players_act_only_at_a_table_whose_game_has_players(tmp_path) -> None:
    from station.core.settings import TableSettings
    from station.live.table_station import TableStation

    st = TableStation(TableSettings(table="PD-01", game="pokdeng"), tmp_path / "j.sqlite")
    st.start()
    try:
        with pytest.raises(ValueError):
            st.player_action({"account": "a", "action": "sit", "seat": "S1"})
        assert st.fatal is None
    finally:
        st.stop()


def test_odd_values_are_refused_or_taken_and_the_journal_still_replays(tmp_path) -> None:
    """Whatever a field holds, the table answers (a refusal with its reason, or the action
    taken), nothing stops the station, and the journal it wrote re-applies on a restart."""
    import random

    live = LiveTable(tmp_path / "journal.sqlite").start()
    odd = [None, True, 0, -1, 10**30, 1.5, "", "S1", "S9", "x" * 200, [], ["AS", "AD"],
           ["XX", "YY"], [1, 2], [{"a": 1}], {}, {"a": [1]}, "AS"]
    actions = ["sit", "leave", "bet", "call", "raise", "fold", "all_in", "arrange", "buy_in",
               "decline", "disconnect", "reconnect", "dance"]
    rng = random.Random(5)
    s = SzTraceScript(table="SZ-07")
    try:
        n = seat_four(live, s)
        s.wait(1).dealer("open_betting").wait(1).shuffle().deal(HANDS, leader="S1")
        n = live.feed(s, n)
        answers = set()
        with httpx.Client(base_url=live.url, headers={"authorization": f"Bearer {KEY}"}) as http:
            for _ in range(150):
                body = {"account": rng.choice("abcdz"), "action": rng.choice(actions)}
                for name in ("seat", "amount", "front", "back"):
                    if rng.random() < 0.5:
                        body[name] = rng.choice(odd)
                r = http.post("/v1/players/actions", json=body)
                assert r.status_code in (200, 409), (body, r.text)
                if r.status_code == 409:
                    answers.add(r.json()["reason"])
        assert live.station.fatal is None
        assert {"bad_action", "not_your_turn"} <= answers
        made = list(live.records)
    finally:
        live.stop()
    again = LiveTable(tmp_path / "journal.sqlite")
    again.clock.t = live.clock.t
    again.start()
    try:
        # re-applied (from its newest snapshot) without a difference, and carries on
        assert len(list(Journal(live.journal).inputs(0))) > 150
        assert again.station.fatal is None
        r = again.post({"account": "zz", "action": "leave"})
        assert r.status_code == 409 and r.json()["reason"] == "not_seated"
    finally:
        again.stop()
    assert made
