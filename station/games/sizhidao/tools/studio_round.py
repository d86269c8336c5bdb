"""`station studio`: the round a Si Zhi Dao table is in, as the studio console lists it
(station/studio/state.py): a table's round is its game, with the deal inside it and the
pot."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from station.games.sizhidao.panel import VIEW_KEY


def game_round(view: Mapping[str, Any]) -> dict[str, Any] | None:
    """The game in play (its view keeps it under the game's own key, `game`), or None
    between games."""
    own = view.get(VIEW_KEY)
    game = own.get("game") if isinstance(own, dict) else None
    if not isinstance(game, dict) or not game.get("game_id"):
        return None
    deal = game.get("deal") or {}
    return {"round": game.get("game_id"),
            "game_round": {"deal": deal.get("deal_id"), "deal_phase": deal.get("phase"),
                           "pot": game.get("pot")}}
