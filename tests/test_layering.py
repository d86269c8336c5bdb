"""Nothing imports up the data path (README: shoe and camera → firmware_bridge → station/core
with station/games → settlement, console). Read from the source, import by import."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]

# package -> packages it must never import (they sit above it on the data path)
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


def _modules(package: str) -> list[Path]:
    return sorted((ROOT / package.replace(".", "/")).rglob("*.py"))


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_no_import_up_the_data_path(package):
    bad = []
    for path in _modules(package):
        for line, name in _imports(path):
            if any(name == f or name.startswith(f + ".") for f in FORBIDDEN[package]):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    assert not bad, "\n".join(bad)
