"""Blind test renderer: 4K overhead frames of a Si Zhi Dao table (seven seats)."""
from .render import PERTURBATIONS, render_seats_calibration, render_seats_frame
from .styles import DECK_STYLES

__all__ = ["DECK_STYLES", "PERTURBATIONS", "render_seats_frame", "render_seats_calibration"]
