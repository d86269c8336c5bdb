"""No file of the station outside `station/games/<game>/` names a game: not its name or its
words, not its module path, not a zone that only one game has. The games declare what is
theirs (station/games/base.py, station/games/presentation.py) and the rest of the station
renders it. Registry data (`BUILT_IN` and `DEFAULT_GAME` in station/games/__init__.py) and
docs/ are aside. There is no list of exceptions: a file that names a game fails."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from station.games import BUILT_IN

ROOT = Path(__file__).parents[1]
#: what is scanned: the station's own code and web files, its benchmarks and scripts (docs/
#: and tests/ are aside)
SCANNED = ("station", "firmware_bridge", "bench", "scripts")
SUFFIXES = (".py", ".js", ".html", ".css", ".json", ".toml", ".txt", ".sh")

#: a game's name, its words, its module path (station.games.<game> contains the name)
GAME_WORDS = re.compile(r"pok[\s_-]*deng|pai[\s_-]*gow|si[\s_-]*zhi[\s_-]*dao|high[\s_-]*card"
                        r"|wen[\s_-]*zhou|博丁|牌九|四支刀|温州", re.IGNORECASE)
#: zones that only one game has, as a quoted name in code
ONE_GAMES_ZONES = ("P1", "P2", "P3", "P4", "P5", "B", "BANKER", "SHUN", "CHU", "DAO", "DICE",
                   "S1", "S2", "S3", "S4", "S5", "S6", "S7")
ZONE_LITERAL = re.compile(r"""["'](""" + "|".join(ONE_GAMES_ZONES) + r""")["']""")
#: a table name of one game, by its prefix, as a quoted string in code ("PD-01")
TABLE_PREFIX = re.compile(r"""["'](PD|WZ|SZ|PG)-""")

def _is_a_games_own(rel: Path) -> bool:
    """A file in the package of a game of the station's (station/games/<name>/): only there
    may a game be named."""
    parts = rel.parts
    return len(parts) > 3 and parts[:2] == ("station", "games") and parts[2] in BUILT_IN


#: the registry's data, where names belong: its table of the built-in games and the game of a
#: table that names none
REGISTRY_DATA = ("BUILT_IN", "DEFAULT_GAME")


def _registry_data_aside(rel: Path, text: str) -> str:
    """The registry's data (each assignment of REGISTRY_DATA, and nothing else of the file)
    is where names belong."""
    if rel != Path("station/games/__init__.py"):
        return text
    lines = text.splitlines(keepends=True)
    aside = []
    for node in ast.parse(text).body:
        targets = [getattr(node, "target", None), *getattr(node, "targets", [])]
        if any(isinstance(t, ast.Name) and t.id in REGISTRY_DATA for t in targets):
            aside.append((node.lineno - 1, node.end_lineno))
    for first, end in reversed(aside):
        del lines[first:end]
    return "".join(lines)


def names_in(text: str) -> set[str]:
    """What in a text names a game: its words, a zone of one game's, a table's prefix."""
    found = {re.sub(r"[\s_-]+", " ", m.group(0).lower()) for m in GAME_WORDS.finditer(text)}
    found |= {f"zone {m.group(1)!r}" for m in ZONE_LITERAL.finditer(text)}
    found |= {f"table {m.group(1)}-" for m in TABLE_PREFIX.finditer(text)}
    return found


def names_a_game(rel: Path, root: Path = ROOT) -> list[str]:
    """What in the file names a game (empty: nothing)."""
    text = _registry_data_aside(rel, (root / rel).read_text(encoding="utf-8", errors="replace"))
    return sorted(names_in(text))


def offenders(root: Path = ROOT) -> dict[str, list[str]]:
    out = {}
    for base in SCANNED:
        for path in sorted((root / base).rglob("*")):
            rel = path.relative_to(root)
            if not path.is_file() or path.suffix not in SUFFIXES or _is_a_games_own(rel):
                continue
            if "__pycache__" in rel.parts:
                continue
            found = names_a_game(rel, root)
            if found:
                out[rel.as_posix()] = found
    return out


def test_no_file_outside_a_games_package_names_a_game():
    found = offenders()
    assert not found, "these files name a game; let the game declare it instead:\n" + \
        "\n".join(f"{f}: {', '.join(what)}" for f, what in sorted(found.items()))


def test_the_console_and_the_player_api_name_no_game():
    renderers = [*(ROOT / "station/console").rglob("*.*"), ROOT / "station/live/player_api.py"]
    for path in renderers:
        rel = path.relative_to(ROOT)
        if path.suffix in SUFFIXES and "__pycache__" not in rel.parts:
            assert names_a_game(rel) == [], rel


def test_the_scan_sees_a_game_named():
    """The scan itself can fail: each kind of naming is caught."""
    for line, caught in [('import station.games.paigow.bets', "paigow"),
                         ('# at a Si Zhi Dao table', "si zhi dao"),
                         ('# a Si-Zhi Dao or si  zhi_dao table', "si zhi dao"),
                         ('# Pai  Gow, Pai-Gow, pai__gow', "pai gow"),
                         ('# Wenzhou Pai Gow', "wenzhou"),
                         ('# 温州牌九', "温州"),
                         ('zone = "DICE"', "zone 'DICE'"),
                         ('table = "PD-01"', "table PD-"),
                         ("name = f'SZ-{i:02d}'", "table SZ-"),
                         ('if game == "pokdeng":', "pokdeng")]:
        assert caught in names_in(line), (line, names_in(line))
    assert not names_in("a pot game's seats, zone \"BURN\", table \"T-01\", CPD-1, 'APD-'")


def test_the_scan_finds_a_seeded_offender_in_a_tree(tmp_path: Path) -> None:
    """offenders() on a tree of its own: a game named in the kernel, a bench and a script is
    found; a game's own package and the registry's table are not; a package of a name that
    is no game of the station's is scanned like the rest."""
    files = {
        "station/core/seeded.py": 'DEFAULT = "pokdeng"\n',
        "station/console/page.js": "const t = 'WZ-01';\n",
        "bench/bench_seeded.py": "# Pai-Gow dice\n",
        "scripts/seed.sh": "echo wenzhou\n",
        "station/games/pokdeng/rules.py": "# Pok Deng's own rules\n",
        "station/games/notagame/helper.py": "# borrowed from Si Zhi Dao\n",
        "station/games/__init__.py": 'BUILT_IN = {"pokdeng": "x:Y"}\nX = 1\n',
        "docs/pokdeng.md": "Pok Deng\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    assert offenders(tmp_path) == {
        "station/core/seeded.py": ["pokdeng"],
        "station/console/page.js": ["table WZ-"],
        "station/games/notagame/helper.py": ["si zhi dao"],
        "bench/bench_seeded.py": ["pai gow"],
        "scripts/seed.sh": ["wenzhou"],
    }
    # the registry's data is aside, the rest of the registry's file is scanned
    (tmp_path / "station/games/__init__.py").write_text(
        '"""Games: Pai Gow among them."""\nBUILT_IN = {"pokdeng": "x:Y",\n    "paigow": "a:B"}\n'
        'DEFAULT_GAME: str = "pokdeng"\nFALLBACK = "sizhidao"\n', encoding="utf-8")
    assert offenders(tmp_path)["station/games/__init__.py"] == ["pai gow", "sizhidao"]
