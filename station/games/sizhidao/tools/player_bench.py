"""Si Zhi Dao's table in `./run.sh bench players`: three players with wallets, seated apart
(S1, S3, S5) so no deal starts; the actions timed are a player's disconnect and reconnect
in turn, which each go through the journal and change the table without moving money."""

from __future__ import annotations

from typing import Any

from station.games.sizhidao.seats import SEATS


def seat_players(station: Any) -> dict[str, Any]:
    for account, seat in (("a", SEATS[0]), ("b", SEATS[2]), ("c", SEATS[4])):
        station.submit("wallet", {"account": account, "balance": 10_000})
        station.player_action({"account": account, "action": "sit", "seat": seat})
    return {"http": "a", "direct": "b", "actions": ("disconnect", "reconnect")}
