"""Panel files that break the contract, beside which the presentation tests put their broken
variants of the toy game's presentation (tests/core/test_game_presentation.py)."""
