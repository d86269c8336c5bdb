"""The game's tools: each is found by name through the game's `tools` (station/games/tools.py),
never imported by module."""
