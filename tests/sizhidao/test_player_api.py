"""The player API through a real HTTP server on a real table kernel: actions answered with
what the table made of them (200, or 409 with the refusal), the platform's key required, the
shape checked, a retried ref applied once, and each account's view and event stream carrying
its own cards and never another account's."""

from __future__ import annotations

import json
import threading
import time

import httpx
import pytest

from station.core.inputs import parse_input
from station.core.kernel import TableKernel
from station.core.settings import TableSettings
from station.games.sizhidao.player_api import KernelPlayers, PlayerStreams, build_app
from station.games.sizhidao.script import SzTraceScript
from station.live.http import serve_app
from tests.sizhidao.staged_games import BEATEN, TIE1, TIE3

KEY = "k-platform-1"
HANDS = {"S1": TIE1, "S2": "KS KH KD KC".split(), "S3": TIE3, "S4": BEATEN}


class Table:
    def __init__(self) -> None:
        self.kernel = TableKernel(TableSettings(table="SZ-07", game="sizhidao"))
        self.now_us = 0
        self.streams = PlayerStreams()
        self.players = KernelPlayers(self.kernel, lambda: self.now_us, self.streams)

    def feed(self, script: SzTraceScript, start: int = 0) -> int:
        """Apply the script's device and dealer lines from `start` (players go through HTTP)."""
        for i, line in enumerate(script.lines[start:], start):
            inp = parse_input(line, i + 2)
            self.now_us = inp.t_us
            if inp.kind != "player":
                self.players.apply(inp.kind, inp.value, inp.user)
        return len(script.lines)


@pytest.fixture
def served():
    table = Table()
    app = build_app(
        table.players.act, table.players.view, table.streams, {KEY: "platform-1"}, heartbeat_s=0.2
    )
    srv = serve_app(app, "127.0.0.1", 0, name="players")
    try:
        yield table, srv.url
    finally:
        srv.stop()


def post(url, body, key=KEY):
    headers = {"authorization": f"Bearer {key}"} if key else {}
    return httpx.post(
        url + "/v1/players/actions", content=json.dumps(body), headers=headers, timeout=10
    )


def test_actions_answers_and_private_cards_by_account(served) -> None:
    table, url = served
    s = SzTraceScript(table="SZ-07")
    for acc in "abcd":
        s.wallet(acc, 10_000)
    n = table.feed(s)
    # a stream per account, read on its own thread
    got: dict[str, list] = {"a": [], "b": []}

    def listen(account: str) -> None:
        with httpx.stream(
            "GET",
            f"{url}/v1/players/{account}/stream",
            headers={"authorization": f"Bearer {KEY}"},
            timeout=30,
        ) as r:
            assert r.status_code == 200
            event = None
            for line in r.iter_lines():
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: "):
                    got[account].append((event, json.loads(line[6:])))
                    if event == "record" and got[account][-1][1]["type"] == "layers":
                        return

    threads = [threading.Thread(target=listen, args=(a,), daemon=True) for a in ("a", "b")]
    for th in threads:
        th.start()
    time.sleep(0.5)
    for acc, seat in zip("abcd", ("S1", "S2", "S3", "S4"), strict=True):
        r = post(url, {"account": acc, "action": "sit", "seat": seat})
        assert r.status_code == 200 and r.json()["records"][0]["type"] == "seated"
    r = post(url, {"account": "e", "action": "sit", "seat": "S1"})
    assert r.status_code == 409 and r.json()["reason"] == "seat_taken"
    assert r.json()["error"] == "action_refused" and r.json()["account"] == "e"
    assert (
        post(url, {"account": "a", "action": "sit", "seat": "S5"}, key="wrong").status_code == 401
    )
    assert post(url, {"account": "a", "action": "sit", "seat": "S5"}, key=None).status_code == 401
    assert post(url, {"account": "a", "action": "sit", "bogus": 1}).status_code == 422
    assert (
        httpx.post(
            url + "/v1/players/actions", content=b"{", headers={"authorization": f"Bearer {KEY}"}
        ).status_code
        == 400
    )

    s.wait(1).dealer("open_betting").wait(1).shuffle().deal(HANDS, leader="S1")
    n = table.feed(s, n)
    # the owner's view shows its cards; another's view shows counts only
    view_a = httpx.get(
        f"{url}/v1/players/a/view", headers={"authorization": f"Bearer {KEY}"}
    ).json()
    assert view_a["you"]["cards"] == TIE1
    flat_a = json.dumps(view_a)
    assert not any(f'"{c}"' in flat_a for c in HANDS["S2"])
    view_b = httpx.get(
        f"{url}/v1/players/b/view", headers={"authorization": f"Bearer {KEY}"}
    ).json()
    assert view_b["you"]["cards"] == HANDS["S2"]
    assert not any(f'"{c}"' in json.dumps(view_b) for c in TIE1)
    assert view_a["game"]["deal"]["cards"] == {"S1": 4, "S2": 4, "S3": 4, "S4": 4}
    assert view_a["game"]["deal"]["turn"] == "S1"

    # betting through the API, with a retried ref answered once
    r = post(url, {"account": "a", "action": "bet", "amount": 300, "ref": "a-1"})
    assert r.status_code == 200
    (rec,) = [x for x in r.json()["records"] if x["type"] == "player_action"]
    assert (rec["action"], rec["amount"], rec["total"]) == ("bet", 200, 300)
    again = post(url, {"account": "a", "action": "bet", "amount": 300, "ref": "a-1"})
    assert again.status_code == 200 and again.json() == r.json()
    r = post(url, {"account": "c", "action": "call"})
    assert r.status_code == 409 and r.json()["reason"] == "not_your_turn"
    for acc in "bcd":
        assert post(url, {"account": acc, "action": "call"}).status_code == 200
    assert table.kernel.balances["a"] == 9700
    r = post(
        url, {"account": "a", "action": "arrange", "front": ["3D", "3C"], "back": ["9H", "QS"]}
    )
    assert r.status_code == 409 and r.json()["reason"] == "front_above_back"
    assert "9H" not in r.text and "3D" not in r.text  # a refusal never repeats the cards
    s.at_least(table.now_us / 1e6 + 10.5).reveal(HANDS)
    table.feed(s, n)
    for th in threads:
        th.join(20)
    for acc, seat in (("a", "S1"), ("b", "S2")):
        events = got[acc]
        assert events and events[0][0] == "view"
        privates = [d for e, d in events if e == "record" and d["type"] == "private"]
        assert len(privates) == 4 and all(
            p["account"] == acc and p["seat"] == seat for p in privates
        )
        assert privates[-1]["cards"] == HANDS[seat]
        assert any(d["type"] == "layers" for e, d in events if e == "record")
        # before the showdown nothing in this stream names another seat's card
        other = [c for s_, cs in HANDS.items() if s_ != seat for c in cs]
        before = []
        for e, d in events:
            if e == "record" and d["type"] == "showdown":
                break
            before.append(d)
        assert not any(f'"{c}"' in json.dumps(before) for c in other)
