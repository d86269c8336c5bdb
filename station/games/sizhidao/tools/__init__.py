"""Si Zhi Dao's tools: off the table's data path, reached by name through the game's `tools`
(station/games/tools.py), never imported by the station's modules."""
