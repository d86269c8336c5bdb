"""A held-out renderer of the overhead camera's pictures, written from the card-face sheet
alone (README.md). Recognisers are held to it; none is tuned on it."""

from .cards import DECK_STYLES
from .dice import DICE_SETS, render_dice_calibration, render_dice_scene
from .perturb import PERTURBATIONS
from .seats import render_seats_calibration, render_seats_frame

__all__ = ["DECK_STYLES", "DICE_SETS", "PERTURBATIONS", "render_dice_calibration", "render_dice_scene",
           "render_seats_calibration", "render_seats_frame"]
