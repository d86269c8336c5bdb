"""An independent renderer of the camera's scenes, written from the card-face sheet alone:
dice trays and Si Zhi Dao seats in physical units, seen by a pinhole camera, with the truth a
recogniser that follows the sheet must report. It owes nothing to the station under test."""

from .calibration import seat_calibration_stills, tray_calibration_stills
from .cards import DECK_STYLES
from .dice import DICE_SETS
from .perturb import PERTURBATIONS, perturb
from .seats import SEAT_NAMES, render_seat_scene, render_two_camera_scene
from .tray import render_dice_tray

__all__ = [
    "DECK_STYLES",
    "DICE_SETS",
    "PERTURBATIONS",
    "SEAT_NAMES",
    "perturb",
    "render_dice_tray",
    "render_seat_scene",
    "render_two_camera_scene",
    "seat_calibration_stills",
    "tray_calibration_stills",
]
