"""Card notation of RULES.md §0, re-implemented here so the renderer owes nothing to the
station it tests: rank then suit, canonical form two characters (`TD` for the ten)."""

from __future__ import annotations

import re

RANKS = "A23456789TJQK"
SUITS = "SHDC"
_SUIT_SYMBOLS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}
DECK = tuple(r + s for s in SUITS for r in RANKS)

# printed code of a serialized deck: shoe digit, dash, four digits (the sheet's `3-0417`)
_SERIAL = re.compile(r"^[0-9]-[0-9]{4}$")


def canonical(card: str) -> str:
    """`10d`, `q♥`, `7H` -> canonical two characters; anything else raises ValueError."""
    if not isinstance(card, str):
        raise ValueError(f"a card is a string, got {card!r}")
    s = card.strip()
    for sym, letter in _SUIT_SYMBOLS.items():
        s = s.replace(sym, letter)
    s = s.upper()
    if s.startswith("10"):
        s = "T" + s[2:]
    if len(s) != 2 or s[0] not in RANKS or s[1] not in SUITS:
        raise ValueError(f"not a card: {card!r} (rank A 2-9 T J Q K, suit S H D C)")
    return s


def qr_text(card: str, serial: str | None = None) -> str:
    """What a face's QR code carries: the card, or the card, a slash and its printed code."""
    c = canonical(card)
    if serial is None:
        return c
    if not _SERIAL.match(serial):
        raise ValueError(f"not a printed card code: {serial!r} (digit, dash, four digits)")
    return f"{c}/{serial}"


def card_of_qr_text(text: str) -> str:
    """The card a QR text names (the inverse of qr_text), ValueError when not of that form."""
    card, sep, serial = text.partition("/")
    if len(card) != 2:
        raise ValueError(f"not a card's QR text: {text!r}")
    c = canonical(card)
    if c != card:
        raise ValueError(f"not a card's QR text: {text!r}")
    if sep and not _SERIAL.match(serial):
        raise ValueError(f"not a card's QR text: {text!r}")
    return c
