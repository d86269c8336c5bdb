"""Nothing imports up the data path (README: shoe and camera → firmware_bridge → station/core
with station/games → settlement, console). Read from the source, import by import."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]

# package -> packages it must never import (they sit above it on the data path). A game's
# tools (station/games/<game>/tools/: its scripted dealer, trace and soak scripts, demo,
# studio session) are off the data path: the commands find them by name through the game
# (station/games/tools.py) and they drive a whole station, so they may import any part of it
# but the commands; nothing imports them by module.
FORBIDDEN = {
    "firmware_bridge": ("station",),
    "station.core": ("station.live", "station.console", "station.settlement", "station.sim",
                     "station.commands", "station.studio", "station.runtime"),
    "station.games": ("station.live", "station.console", "station.settlement", "station.sim",
                      "station.commands", "station.studio", "station.runtime"),
    "station.live": ("station.console", "station.commands", "station.runtime"),
    "station.settlement": ("station.live", "station.console", "station.commands"),
}


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.lineno, node.module))
    return out


def _is_a_games_tool(path: Path) -> bool:
    """A module of a game's tools: station/games/<game>/tools/..."""
    parts = path.relative_to(ROOT).parts
    return len(parts) > 4 and parts[:2] == ("station", "games") and parts[3] == "tools"


def _modules(package: str) -> list[Path]:
    found = sorted((ROOT / package.replace(".", "/")).rglob("*.py"))
    if package == "station.games":
        return [p for p in found if not _is_a_games_tool(p)]
    return found


def _games_tools() -> list[Path]:
    return sorted(p for p in (ROOT / "station/games").rglob("*.py") if _is_a_games_tool(p))


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_no_import_up_the_data_path(package):
    bad = []
    for path in _modules(package):
        for line, name in _imports(path):
            if any(name == f or name.startswith(f + ".") for f in FORBIDDEN[package]):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    assert not bad, "\n".join(bad)


def test_a_games_tools_import_no_command_and_nothing_imports_them():
    """A game's tools may drive a whole station (they sit beside the commands, not under
    them); the station reaches them only by name, through the game's `tools`."""
    bad = []
    for path in _games_tools():
        for line, name in _imports(path):
            if name == "station.commands" or name.startswith("station.commands."):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    tools_of_a_game = re.compile(r"^station\.games\.\w+\.tools(\.|$)")
    for package in ("firmware_bridge", "station"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if _is_a_games_tool(path):
                continue
            for line, name in _imports(path):
                if tools_of_a_game.match(name):
                    bad.append(f"{path.relative_to(ROOT)}:{line} imports {name} (a game's "
                               "tool is found by name: station.games.tools.game_tool)")
    assert not bad, "\n".join(bad)


def _module_names() -> list[str]:
    names = []
    for package in ("firmware_bridge", "station"):
        for path in _modules(package):
            rel = path.relative_to(ROOT).with_suffix("")
            if rel.name == "__main__":
                continue  # a command line: importing it runs it (and its exit ends the check)
            parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
            names.append(".".join(parts))
    return sorted(names)


def test_every_module_imports_first_and_alone():
    """Each module of the station imports in an interpreter that has loaded none of the
    station before it (an import cycle shows only then: `station.core.deal` once failed)."""
    import subprocess
    import sys

    names = _module_names()
    assert "station.core.deal" in names and len(names) > 100
    script = (
        "import importlib, sys, traceback\n"
        "bad = []\n"
        f"for name in {names!r}:\n"
        "    for m in [m for m in sys.modules if m.split('.')[0] in ('station', 'firmware_bridge')]:\n"
        "        del sys.modules[m]\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception as e:\n"
        "        bad.append(f'{name}: {type(e).__name__}: {e}')\n"
        "print('\\n'.join(bad))\n"
        "sys.exit(1 if bad else 0)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]


def test_the_settlement_side_loads_no_procedure():
    """Settlement and the rules tools take a game's rules; its table procedure (and the
    kernel it needs) is imported only when a table runs."""
    import subprocess
    import sys

    script = ("import sys\nimport station.settlement.core\nfrom station.games import GAMES\n"
              "[GAMES[n] for n in GAMES]\n"
              "print([m for m in sys.modules if m.endswith('.procedure') or m == 'station.core.kernel'])")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
