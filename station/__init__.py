"""The dealer station: the computer at a live-dealer card table."""

__version__ = "0.1.0"
