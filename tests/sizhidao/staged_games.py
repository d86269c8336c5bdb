"""Staged Si Zhi Dao sessions as traces (station.games.sizhidao.script): each returns the
script and what a station following the spec must make of it."""

from __future__ import annotations

from station.games.sizhidao.script import SzTraceScript

FOUR = [("a", "S1"), ("b", "S2"), ("c", "S3"), ("d", "S4")]

# RULES.md Z-2: three hands nobody beats; and a hand all three beat
TIE1, TIE2, TIE3 = "9H QS 3D 3C".split(), "JH KD 2S 2H".split(), "8C AC 7D 7S".split()
BEATEN = "4C 7H 8D TC".split()


def betting(s: SzTraceScript, moves, gap: float = 2.0) -> SzTraceScript:
    for account, action, *amount in moves:
        s.wait(gap)
        if amount:
            s.player(account, action, amount=amount[0])
        else:
            s.player(account, action)
    return s


def arrange_all(s: SzTraceScript, arrangements) -> SzTraceScript:
    for account, front, back in arrangements:
        s.wait(0.8).player(account, "arrange", front=front, back=back)
    return s


def two_tie_rounds_and_an_all_in_layer() -> tuple[SzTraceScript, dict]:
    """D1: S4 goes all-in short and is beaten; S1 S2 S3 tie on both layers. S4 cannot buy
    in and stays silent. D2: S1 and S2 tie again on every layer, S3 beaten. S3 buys in. D3:
    S3's four aces take every layer."""
    s = SzTraceScript(note="two tie rounds in a row and an all-in layer")
    s.sit(FOUR, balance={"a": 10_000, "b": 10_000, "c": 10_000, "d": 300})
    s.wait(1).dealer("open_betting").wait(1).shuffle()
    d1 = {"S1": TIE1, "S2": TIE2, "S3": TIE3, "S4": BEATEN}
    s.deal(d1, leader="S1")
    betting(s, [("a", "bet", 500), ("b", "call"), ("c", "call"), ("d", "all_in")])
    s.wait(10.5)  # nobody arranges: automatic at the end of the 10 s
    s.reveal({k: d1[k] for k in ("S1", "S2", "S3", "S4")}).clear()
    s.wait(8)  # the window (S4 may buy in, cannot pay) closes at its 10 s
    s.shuffle()
    d2 = {"S1": TIE1, "S2": TIE2, "S3": BEATEN}
    s.deal(d2, leader="S1")
    betting(s, [("a", "bet", 100), ("b", "call"), ("c", "call")])
    arrange_all(
        s,
        [
            ("a", ["9H", "QS"], ["3D", "3C"]),
            ("b", ["JH", "KD"], ["2S", "2H"]),
            ("c", ["4C", "TC"], ["7H", "8D"]),
        ],
    )
    s.reveal(d2).clear()
    s.wait(1).player("c", "buy_in").wait(1)
    s.shuffle()
    d3 = {"S1": "2C 3C 4H 5H".split(), "S2": "6C 7S 8S 9S".split(), "S3": "AS AD AC AH".split()}
    s.deal(d3, leader="S1")
    betting(s, [("a", "bet", 100), ("b", "call"), ("c", "call")])
    s.wait(10.5)
    s.reveal(d3).clear()
    s.end()
    want = {
        "layers": {
            "SZ-01-G1-D1": [
                {
                    "amount": 1200,
                    "contestants": ["S1", "S2", "S3", "S4"],
                    "winner": None,
                    "tied": ["S1", "S2", "S3"],
                },
                {
                    "amount": 600,
                    "contestants": ["S1", "S2", "S3"],
                    "winner": None,
                    "tied": ["S1", "S2", "S3"],
                },
            ],
            "SZ-01-G1-D2": [
                {
                    "amount": 1200,
                    "contestants": ["S1", "S2", "S3"],
                    "winner": None,
                    "tied": ["S1", "S2"],
                },
                {
                    "amount": 600,
                    "contestants": ["S1", "S2", "S3"],
                    "winner": None,
                    "tied": ["S1", "S2"],
                },
                {
                    "amount": 300,
                    "contestants": ["S1", "S2", "S3"],
                    "winner": None,
                    "tied": ["S1", "S2"],
                },
            ],
            "SZ-01-G1-D3": [
                {"amount": 2250, "contestants": ["S1", "S2", "S3"], "winner": "S3", "tied": []},
                {"amount": 600, "contestants": ["S1", "S2", "S3"], "winner": "S3", "tied": []},
                {"amount": 300, "contestants": ["S1", "S2", "S3"], "winner": "S3", "tied": []},
                {"amount": 300, "contestants": ["S1", "S2", "S3"], "winner": "S3", "tied": []},
            ],
        },
        "buy_ins": [("d", None, True), ("c", 1050, False)],
        "payouts": {"c": 3450},
        "pot": 3450,
        "balances": {"a": 9300, "b": 9300, "c": 10_000 - 700 - 1050 + 3450, "d": 0},
        "leader_next": "S3",
    }
    return s, want


def a_player_left_alone() -> tuple[SzTraceScript, dict]:
    s = SzTraceScript(note="everyone but the leader folds: no showdown, the lead stays")
    s.sit(FOUR)
    s.wait(1).dealer("open_betting").wait(1).shuffle()
    s.deal({"S1": TIE1, "S2": TIE2, "S3": TIE3, "S4": BEATEN}, leader="S1")
    betting(s, [("a", "bet", 400), ("b", "fold"), ("c", "fold"), ("d", "fold")])
    s.clear().end()
    return s, {
        "layers": {
            "SZ-01-G1-D1": [{"amount": 700, "contestants": ["S1"], "winner": "S1", "tied": []}]
        },
        "buy_ins": [],
        "payouts": {"a": 700},
        "pot": 700,
        "balances": {"a": 10_300, "b": 9900, "c": 9900, "d": 9900},
        "leader_next": "S1",
    }


def a_disconnected_all_in_player() -> tuple[SzTraceScript, dict]:
    """S2 goes all-in and drops its connection; it stays to the end and is arranged
    automatically; S3 drops during its own turn and is folded at once."""
    s = SzTraceScript(note="a disconnected all-in player is arranged automatically")
    s.sit(FOUR, balance={"a": 10_000, "b": 500, "c": 10_000, "d": 10_000})
    s.wait(1).dealer("open_betting").wait(1).shuffle()
    hands = {"S1": TIE1, "S2": "KS KH KD KC".split(), "S3": TIE3, "S4": BEATEN}
    s.deal(hands, leader="S1")
    betting(s, [("a", "bet", 1000), ("b", "all_in")])
    s.wait(0.5).player("b", "disconnect")
    s.wait(1).player("c", "disconnect")
    betting(s, [("d", "call")])
    arrange_all(s, [("a", ["9H", "QS"], ["3D", "3C"]), ("d", ["4C", "7H"], ["8D", "TC"])])
    s.reveal({k: hands[k] for k in ("S1", "S2", "S4")}).clear()
    s.end()
    return s, {
        "layers": {
            "SZ-01-G1-D1": [
                {"amount": 1600, "contestants": ["S1", "S2", "S4"], "winner": "S2", "tied": []},
                {"amount": 1000, "contestants": ["S1", "S4"], "winner": "S1", "tied": []},
            ]
        },
        "buy_ins": [],
        "payouts": {"b": 1600, "a": 1000},
        "pot": 2600,
        "balances": {"a": 10_000, "b": 1600, "c": 9900, "d": 9000},
        "auto": {"S1": False, "S2": True, "S4": False},
        "leader_next": "S2",
    }


SCENARIOS = {
    "two_tie_rounds_and_an_all_in_layer": two_tie_rounds_and_an_all_in_layer,
    "a_player_left_alone": a_player_left_alone,
    "a_disconnected_all_in_player": a_disconnected_all_in_player,
}
