"""Fixtures for the overhead camera tests: one layout (the studio layout of the station's
default game, as the game declares it), one recogniser per test."""

from __future__ import annotations

import pytest

from firmware_bridge.camera import Recogniser, SyntheticCamera, TableScene
from station.games import DEFAULT_GAME
from station.games.camera_zones import game_layout


@pytest.fixture(scope="session")
def layout():
    return game_layout(DEFAULT_GAME)


@pytest.fixture
def scene(layout) -> TableScene:
    return TableScene(layout.zone_names, seed=11)


def _render(scene: TableScene, layout, perturbations="clean", seed: int = 3):
    cam = SyntheticCamera(scene, layout, perturbations=perturbations, seed=seed)
    got = None
    while got is None:
        got = cam.read()
    return got[1]


@pytest.fixture
def recogniser(layout) -> Recogniser:
    return Recogniser(layout)


@pytest.fixture
def render():
    """render(scene, layout, perturbations="clean", seed=3) -> one frame (never a dropped one)."""
    return _render
