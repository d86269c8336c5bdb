"""Independent renderer of the overhead camera's view of a Wenzhou Pai Gow dice tray.

See README.md beside this file for the API, the truth format and what varies.
"""
from .render import DICE_SETS, PERTURBATIONS, render_dice_scene

__all__ = ["render_dice_scene", "DICE_SETS", "PERTURBATIONS"]
