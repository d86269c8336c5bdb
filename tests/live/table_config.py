"""A table config of the repository (config/table_*.toml, or a test game's) copied for a test
that starts a station from it: the shoe at the simulator's url, the storage in the test's
folder, the console and the bet API on free ports, a camera layout named from the
repository's root made absolute."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parents[2]


def table_config_for_test(config: Path, folder: Path, shoe_url: str) -> Path:
    """The copy of `config` in `folder`, for a station whose shoe is at `shoe_url`."""
    text = config.read_text("utf-8")
    text, shoes = re.subn(r'(?m)^url = "[^"]*"', f'url = "{shoe_url}"', text)
    text, stores = re.subn(r'(?m)^dir = "[^"]*"', f'dir = "{folder / "var"}"', text)
    text = re.sub(r'(?m)^port = \d+', "port = 0", text)
    text = re.sub(r'(?m)^layout = "(?!/)', f'layout = "{ROOT}/', text)
    assert (shoes, stores) == (1, 1), f"{config}: one [shoe] url and one [storage] dir expected"
    p = folder / config.name
    p.write_text(text, "utf-8")
    return p
