"""Si Zhi Dao as a `Game` of the station: the stateless rules half of the contract in
station/games/base.py. Players play each other for a pot, so there are no bet spots: money
moves by player actions (antes, bets, buy-ins), which the table procedure takes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from station.cards import Card
from station.games.base import BetError, Game
from station.games.sizhidao.arrange import auto_arrange
from station.games.sizhidao.seats import SEATS
from station.games.sizhidao.settings import SiZhiDaoSettings


class SiZhiDao(Game):
    name = "sizhidao"
    settings_class = SiZhiDaoSettings
    title = "Si Zhi Dao"
    camera_accuracy = "station.games.sizhidao.camera_accuracy:suite"
    table_prefix = "SZ-"
    positions = SEATS
    zones = SEATS
    spots: frozenset[str] = frozenset()
    decks = 1
    #: the deal plan depends on who plays and who leads: known at each deal's opening
    deal_plan: tuple[str, ...] = ()
    # by name: the procedure needs the kernel's modules, the rules do not
    procedure_class = "station.games.sizhidao.procedure:SiZhiDaoProcedure"
    presentation = "station.games.sizhidao.panel:SiZhiDaoPanel"
    #: its tools, each in this package (station/games/tools.py)
    tools = {"settle_round": "station.games.sizhidao.settle:settle_deal",
             "soak": "station.games.sizhidao.tools.soak:run_soak",
             "studio_session": "station.games.sizhidao.tools.studio_session:session",
             "studio_round": "station.games.sizhidao.tools.studio_round:game_round",
             "demo": "station.games.sizhidao.tools.demo:demo_command",
             "camera_bench": "station.games.sizhidao.tools.camera_bench:camera_bench",
             "camera_table": "station.games.sizhidao.tools.camera_table:camera_table",
             "player_bench_table": "station.games.sizhidao.tools.player_bench:seat_players",
             "soak_pace": "station.games.sizhidao.tools.soak_pace:soak_pace"}

    def check_bet(self, spot: str, amount: Any, held: Sequence[tuple[str, int]] = ()) -> int:
        raise BetError("bad_spot", "a Si Zhi Dao table takes no bets: players act for a pot")

    def evaluate(self, hands: Mapping[str, Sequence[Card]]) -> dict[str, dict[str, Any]]:
        """Each seat's automatic arrangement and its classes (the `showdown` entries)."""
        return {seat: auto_arrange(cards).as_dict() for seat, cards in hands.items()}

    def returned(self, spot: str, amount: int, hands: Mapping[str, Sequence[Card]]) -> int:
        raise BetError("bad_spot", "a Si Zhi Dao table takes no bets: the pot is settled in layers")
