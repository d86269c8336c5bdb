"""No file of the station outside `station/games/<game>/` names a game: not its name or its
words, not its module path, not a zone that only one game has. The games declare what is
theirs (station/games/base.py, station/games/presentation.py) and the rest of the station
renders it. Registry data (`BUILT_IN` in station/games/__init__.py) and docs/ are aside.

`OFFENDERS` is the list of files that still name a game, each with the reason; it may only
shrink: a file that names a game and is not on it fails, and so does a file on it that no
longer names one (take it off the list)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).parents[1]
#: what is scanned: the station's own code and web files (docs/ and tests/ are aside)
SCANNED = ("station", "firmware_bridge")
SUFFIXES = (".py", ".js", ".html", ".css", ".json", ".toml", ".txt")

#: a game's name, its words, its module path (station.games.<game> contains the name)
GAME_WORDS = re.compile(r"pok[\s_-]?deng|pai[\s_-]?gow|si[\s_-]?zhi[\s_-]?dao|high[\s_-]?card"
                        r"|博丁|牌九|四支刀", re.IGNORECASE)
#: zones that only one game has, as a quoted name in code
ONE_GAMES_ZONES = ("P1", "P2", "P3", "P4", "P5", "B", "BANKER", "SHUN", "CHU", "DAO", "DICE",
                   "S1", "S2", "S3", "S4", "S5", "S6", "S7")
ZONE_LITERAL = re.compile(r"""["'](""" + "|".join(ONE_GAMES_ZONES) + r""")["']""")

#: the files that still name a game, and why (to be emptied: each game's piece moves into
#: its package, or the file reads it from the contract)
OFFENDERS: dict[str, str] = {
    # the contract and the shared game helpers: comments giving a game as the example
    "station/games/base.py": "comments give Si Zhi Dao as the example of a hook",
    "station/games/dealt_rounds.py": "shared round helpers; comments name the two house games",
    "station/games/house_bets.py": "shared bet helpers; comments and a default name the house games",
    # the kernel's core
    "station/core/settings.py": "Pai Gow's and Si Zhi Dao's settings are core fields (#22 item 3)",
    "station/core/inputs.py": "the DICE zone parser (#22 item 3: zone kinds)",
    "station/core/diagram.py": "procedure.md for Pok Deng, procedure-<game>.md otherwise",
    "station/core/machine.py": "a comment names Pok Deng's states",
    "station/core/view.py": "a comment names Pok Deng",
    # the live layer
    "station/live/config.py": "the default game of a table config is pokdeng",
    "station/live/bet_api.py": "an example spot P3 in the API's help text",
    "station/live/recording.py": "a comment gives Si Zhi Dao as the game whose trace spans shoes",
    "station/live/table_station.py": "a comment names Si Zhi Dao's settings_used",
    "station/runtime.py": "a comment names Si Zhi Dao where players act",
    # settlement
    "station/settlement/pot.py": "the pot game's money: its docstring names Si Zhi Dao",
    "station/settlement/ledger/check.py": "a comment names Si Zhi Dao's pot",
    "station/settlement/sim.py": "per-game probes and defaults of the settlement simulator",
    # the tools (#22 item 5: game tools in their packages)
    "station/commands/camera.py": "a Pok Deng layout as the example",
    "station/commands/demo.py": "a table of demos per game",
    "station/commands/diagram.py": "the Pok Deng drawing's file name",
    "station/commands/rtp.py": "a table of RTP runners per game",
    "station/commands/settle.py": "per-game settle-line parsing",
    "station/commands/sim_shoe.py": "per-game shoe simulator decks",
    "station/commands/soak.py": "a table of soak scripts per game",
    "station/commands/studio.py": "per-game studio tables and prefixes",
    "station/sim/dealer.py": "Pok Deng's scripted dealer",
    "station/sim/paigow_dealer.py": "Pai Gow's scripted dealer, outside its package",
    "station/sim/paigow_script.py": "Pai Gow's trace script, outside its package",
    "station/sim/paigow_session.py": "Pai Gow's session script, outside its package",
    "station/sim/script.py": "Pok Deng's trace script defaults",
    "station/sim/sizhidao_bots.py": "Si Zhi Dao's bots, outside its package",
    "station/sim/sizhidao_demo.py": "Si Zhi Dao's demo, outside its package",
    "station/sim/sizhidao_soak.py": "Si Zhi Dao's soak, outside its package",
    "station/sim/soak.py": "Pok Deng's and Pai Gow's soak sessions",
    "station/sim/studio.py": "per-game studio scripts",
    "station/studio/scripts.py": "per-game studio scripts",
    "station/studio/state.py": "the studio's Si Zhi Dao state",
    "station/studio/tables.py": "the studio's default game and Si Zhi Dao tables",
    # the firmware bridge (#22 items 3 and 5: camera layouts and zone kinds per game)
    "firmware_bridge/camera/layout.py": "GAME_ZONES: each game's camera layout",
    "firmware_bridge/camera/accuracy.py": "Pok Deng's zones in the accuracy sample",
    "firmware_bridge/camera/dice_accuracy.py": "Pai Gow's dice accuracy sample",
    "firmware_bridge/camera/scene.py": "the synthetic scene's default game and DICE tray",
    "firmware_bridge/cards.py": "comments name the games whose shoes it models",
    "firmware_bridge/shoe/simulator.py": "comments name the games' decks",
    "firmware_bridge/shoe/trace.py": "the default game of a shoe trace",
}


def _is_a_games_own(rel: Path) -> bool:
    parts = rel.parts
    return len(parts) > 3 and parts[:2] == ("station", "games") and (ROOT / Path(*parts[:3])).is_dir()


def _registry_data_aside(rel: Path, text: str) -> str:
    """The registry's table of the built-in games is where names belong."""
    if rel != Path("station/games/__init__.py"):
        return text
    lines = text.splitlines(keepends=True)
    for node in ast.parse(text).body:
        targets = [getattr(node, "target", None), *getattr(node, "targets", [])]
        if any(isinstance(t, ast.Name) and t.id == "BUILT_IN" for t in targets):
            del lines[node.lineno - 1:node.end_lineno]
            break
    return "".join(lines)


def names_a_game(rel: Path) -> list[str]:
    """What in the file names a game (empty: nothing)."""
    text = _registry_data_aside(rel, (ROOT / rel).read_text(encoding="utf-8", errors="replace"))
    found = sorted({m.group(0).lower() for m in GAME_WORDS.finditer(text)})
    found += sorted({f"zone {m.group(1)!r}" for m in ZONE_LITERAL.finditer(text)})
    return found


def offenders() -> dict[str, list[str]]:
    out = {}
    for base in SCANNED:
        for path in sorted((ROOT / base).rglob("*")):
            rel = path.relative_to(ROOT)
            if not path.is_file() or path.suffix not in SUFFIXES or _is_a_games_own(rel):
                continue
            if "__pycache__" in rel.parts:
                continue
            found = names_a_game(rel)
            if found:
                out[rel.as_posix()] = found
    return out


def test_no_file_outside_a_games_package_names_a_game():
    found = offenders()
    new = {f: what for f, what in found.items() if f not in OFFENDERS}
    assert not new, "these files name a game; let the game declare it instead:\n" + "\n".join(
        f"{f}: {', '.join(what)}" for f, what in sorted(new.items()))


def test_the_list_of_offenders_only_shrinks():
    found = offenders()
    gone = sorted(f for f in OFFENDERS if f not in found)
    assert not gone, f"these files no longer name a game: take them off OFFENDERS: {gone}"


def test_the_console_and_the_player_api_name_no_game():
    renderers = [*(ROOT / "station/console").rglob("*.*"), ROOT / "station/live/player_api.py"]
    for path in renderers:
        rel = path.relative_to(ROOT)
        if path.suffix in SUFFIXES and "__pycache__" not in rel.parts:
            assert rel.as_posix() not in OFFENDERS
            assert names_a_game(rel) == [], rel


def test_the_scan_sees_a_game_named():
    """The scan itself can fail: each kind of naming is caught."""
    for line, caught in [('import station.games.paigow.bets', "paigow"),
                         ('# at a Si Zhi Dao table', "si zhi dao"),
                         ('zone = "DICE"', "zone 'DICE'"),
                         ('if game == "pokdeng":', "pokdeng")]:
        found = sorted({m.group(0).lower() for m in GAME_WORDS.finditer(line)})
        found += [f"zone {m.group(1)!r}" for m in ZONE_LITERAL.finditer(line)]
        assert caught in found, (line, found)
    assert not GAME_WORDS.search("a pot game's seats") and not ZONE_LITERAL.search('"BURN"')
