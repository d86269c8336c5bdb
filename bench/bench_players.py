"""Player games' figures: a player action through the live station, and the soak's pace, for
every game of the station that declares them (found in the registry: its `player_bench_table`
and `soak_pace` tools, station/games/tools.py).

Action latency: the platform's `POST /v1/players/actions` over HTTP to a live `TableStation`
of the game (journal on, SQLite WAL with synchronous=FULL: fsync per commit), its players
seated as the game declares, timed from the request to its answer, against two baselines
measured in the same run — the same actions handed to `TableStation.player_action` in the
process (the journaled input path without HTTP), and `GET /v1/players/{account}/view` over
HTTP (HTTP without the journal). Goal p99 ≤ 25 ms: a player's action is answered at once
against the 15 s of a decision.

Soak pace: the game's simulated games through the live station with crashes, in inputs per
second and times real time.

    ./run.sh bench players
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from station.games import GAMES, get_game
from station.games.tools import game_tool


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def _row(name: str, xs: list[float], goal: str = "") -> None:
    print(f"  {name:44} {_pct(xs, 0.5):8.2f} {_pct(xs, 0.9):8.2f} {_pct(xs, 0.99):8.2f} {max(xs):8.2f}   {goal}")


def bench_actions(name: str, seat_players: Callable[[Any], dict[str, Any]], n: int = 400) -> None:
    from station.core.settings import TableSettings
    from station.live.http import serve_app
    from station.live.player_api import make_player_app, stop_player_app
    from station.live.table_station import TableStation

    table = f"{get_game(name).table_prefix}BENCH"
    with tempfile.TemporaryDirectory(prefix="bench-players-") as tmp:
        st = TableStation(TableSettings(table=table, game=name), Path(tmp) / "j.sqlite")
        st.start()
        app = make_player_app(st, {"k-bench": "bench"})
        served = serve_app(app, "127.0.0.1", 0, name="players")
        try:
            seated = seat_players(st)
            turn = seated["actions"]
            actions = [turn[i % len(turn)] for i in range(n)]
            direct, over_http, views = [], [], []
            for action in actions:
                t = time.perf_counter()
                st.player_action({"account": seated["direct"], "action": action})
                direct.append((time.perf_counter() - t) * 1000)
            with httpx.Client(base_url=served.url, headers={"authorization": "Bearer k-bench"}) as http:
                for action in actions:
                    t = time.perf_counter()
                    r = http.post("/v1/players/actions", json={"account": seated["http"], "action": action})
                    over_http.append((time.perf_counter() - t) * 1000)
                    assert r.status_code == 200, r.text
                for _ in actions:
                    t = time.perf_counter()
                    http.get(f"/v1/players/{seated['http']}/view").raise_for_status()
                    views.append((time.perf_counter() - t) * 1000)
        finally:
            stop_player_app(app, served)
            st.stop()
    print(f"player action, answered once durable ({n} each, milliseconds):")
    print(f"  {'what':44} {'p50':>8} {'p90':>8} {'p99':>8} {'max':>8}")
    _row("baseline: player_action in the process", direct)
    _row("baseline: GET view over HTTP (no journal)", views)
    _row("POST /v1/players/actions over HTTP", over_http, "goal p99 <= 25")


def bench_soak(soak_pace: Callable[..., Any], games: int = 30) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-players-soak-") as tmp:
        t = time.perf_counter()
        rep = soak_pace(games, 3, 0.002, Path(tmp))
        seconds = time.perf_counter() - t
    print(f"soak: {rep.games} games, {rep.deals} deals, {rep.inputs} inputs, {rep.crashes} crashes "
          f"in {seconds:.1f} s: {rep.inputs / seconds:.0f} inputs/s, "
          f"{rep.table_seconds / seconds:.0f}x real time (baseline: real time, 1x); ok={rep.ok}")


def main(argv: list[str]) -> int:
    for name in GAMES:
        title = get_game(name).title or name
        seat_players, soak_pace = game_tool(name, "player_bench_table"), game_tool(name, "soak_pace")
        if seat_players is None and soak_pace is None:
            print(f"{title}: no player benchmark declared\n")
            continue
        print(f"{title}:")
        if seat_players is not None:
            bench_actions(name, seat_players)
        if soak_pace is not None:
            bench_soak(soak_pace)
        print()
    return 0
