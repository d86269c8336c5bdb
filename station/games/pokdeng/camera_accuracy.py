"""Pok Deng's camera accuracy suite (`station camera accuracy --game pokdeng`): random tables
of the seven zones (firmware_bridge/camera/accuracy.py's `random_table`: hands of none, one or
two cards face down, face up or half revealed, the burn card, the cut card now and then) on
the embedded 1080p layout, per deck style and perturbation."""

from __future__ import annotations

from firmware_bridge.camera.suite import AccuracyOptions, AccuracyTable, card_table


def suite(opts: AccuracyOptions) -> list[AccuracyTable]:
    from firmware_bridge.camera import accuracy
    from firmware_bridge.camera.config import load_camera_config
    from station.games.camera_zones import game_zones

    cam = load_camera_config(None, game_zones)
    results = accuracy.run_camera(cam, accuracy.random_table, opts.presets, opts.frames, opts.seed,
                                  opts.decoder, opts.styles)
    return [card_table(f"Pok Deng zones {' '.join(cam.layout.zones)} (card reader)", results)]
