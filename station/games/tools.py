"""A game's tools live in its package: the station's commands and simulators find each by
its name through the game (`Game.tools`: tool name -> "module:function"), as they find its
rules and presentation, instead of keeping a table of games per tool. Nothing is imported
until a tool is asked for.

The tools a game may have, and what each is called with:
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

#: tool name -> what it is; a game declares those it has
TOOLS: dict[str, str] = {
    "settle_round": "`station settle`: one parsed round -> its answer (ValueError naming "
                    "what is wrong)",
    "rtp": "`station rtp`: the parsed arguments -> the exit status, having printed its figures",
    "shoe_simulator": "`station sim-shoe`: (arguments, FaultPlan) -> the ShoeSimulator of "
                      "the game's shoe",
    "shoe_dealer": "`station sim-shoe`: (simulator, stop event, every=, pause=, start_after=, "
                   "rounds=, say=) draws as the game's dealer does",
    "studio_session": "`station studio`: (random.Random, table, rounds, account names, "
                      "cancel_every, shared_wallets=) -> the Session of trace lines a studio "
                      "table is fed (shared_wallets: the studio ledger's, none set)",
    "studio_round": "`station studio`: (the table's public view) -> the round in play as the "
                    "studio console lists it, {\"round\": id, \"game_round\": the game's own "
                    "part}, or None: the view's `round` is",
    "demo_table": "`station demo` at a dealt table (station/sim/studio.py): (StudioOptions, "
                  "random.Random, FaultPlan) -> the DemoTable of the game's shoe, dealer, "
                  "spots and camera",
    "demo": "`station demo`: the parsed arguments -> the exit status, having run a whole "
            "simulated table until it is stopped",
    "scripted_dealer": "`station demo`: the class (a station.sim.dealer.ScriptedDealer) "
                       "whose dealer deals the game's simulated table, its `mistakes_made` "
                       "those `--faults` may ask for",
    "soak": "`station soak`: the parsed arguments -> the exit status, having run the rounds "
            "at accelerated time and written the report",
    "rules_bench": "`bench rules`: (quick) -> None, its rules' speed printed beside baselines",
    "camera_bench": "`bench camera`: (reps, kit) -> goals met, its recogniser's cost per frame "
                    "printed beside kit's whole-frame baselines (bench/bench_camera.py Kit)",
    "camera_table": "`bench dice`: () -> the CameraConfig of the game's reference table",
    "settlement_bench_round": "`bench settlement`: () -> {'cards', 'spots', 'intake_spots'} "
                              "of the round its bets are settled on",
    "player_bench_table": "`bench players`: (TableStation) -> {'direct', 'http', 'actions'}, "
                          "its players given wallets and seats",
    "soak_pace": "`bench players`: (games, seed, crash, workdir) -> its soak's report",
}


def game_tool(game: str, tool: str) -> Callable[..., Any] | None:
    """The game's `tool` (None: the game has none)."""
    from station.games import GAMES, load_declared

    if tool not in TOOLS:
        raise KeyError(f"no tool {tool!r} (tools: {', '.join(TOOLS)})")
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r} (known: {', '.join(GAMES)})")
    spec = getattr(GAMES[game], "tools", {}).get(tool)
    if spec is None:
        return None
    return load_declared(game, tool, spec)


def games_with(tool: str) -> tuple[str, ...]:
    """The games that have `tool`, by name (their rules are loaded, not their tools). An
    installed game that cannot be loaded is left out with a warning: one broken package
    does not take a tool away from every other game (asked for by name, it gives its error)."""
    from station.games import GAMES, GameError

    out = []
    for name in GAMES:
        try:
            game = GAMES[name]
        except GameError as e:
            logging.getLogger(__name__).warning("%s", e)
            continue
        if tool in getattr(game, "tools", {}):
            out.append(name)
    return tuple(out)
