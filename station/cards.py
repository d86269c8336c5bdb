"""Card notation (RULES.md §0), for the station's side of the data path.

The notation lives at the bottom of the data path, in `firmware_bridge/cards.py`, because the
shoe's wire format and the camera's QR text speak it too; the station uses the same names.
"""

from firmware_bridge.cards import (
    ALL_CARDS,
    RANKS,
    SUITS,
    Card,
    CardError,
    ShoeContents,
    parse_card,
    parse_cards,
)

__all__ = ["ALL_CARDS", "RANKS", "SUITS", "Card", "CardError", "ShoeContents", "parse_card",
           "parse_cards"]
