"""Wenzhou Pai Gow's tools (station/games/tools.py): the station finds each by its name
through the game's `tools`, never by importing this package."""
