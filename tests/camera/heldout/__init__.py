"""A held-out renderer of the overhead camera's pictures, written from CARD_FACES.md alone (see
README.md): dice trays and Si Zhi Dao seat frames with their ground truth, and the stills a
calibrating tool is given."""

from .deck_styles import DECK_STYLES, DeckStyle
from .dice_scene import render_dice_calibration, render_dice_scene
from .dice_sets import DICE_SETS, DiceSet
from .perturb import PERTURBATIONS
from .seats_scene import render_seats_calibration, render_seats_frame

__all__ = ["DECK_STYLES", "DICE_SETS", "DeckStyle", "DiceSet", "PERTURBATIONS",
           "render_dice_calibration", "render_dice_scene", "render_seats_calibration",
           "render_seats_frame"]
