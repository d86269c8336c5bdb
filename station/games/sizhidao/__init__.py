"""Si Zhi Dao (四支刀): players play each other for a pot (RULES.md §3, PROCEDURE.md §7).

Pure rules, no clock and no I/O:

- `groups`: card values (half-points), the four group classes and their order;
- `arrange`: legal arrangements (front ≤ back) and the automatic arrangement;
- `showdown`: "X beats Y", the winner or the tied set;
- `layers`: the pot in layers, their winners, what is carried to a tie round;
- `betting`: one deal's betting round as a state object;
- `table`: seating and the leader rule, the tie-round rights and the buy-in window;
- `settle`: one deal settled from its cards (`station settle --game sizhidao`);
- `rules`: the game as the station knows it (`SiZhiDao`, no bet spots), and `procedure`: its
  table procedure plugged into the table kernel (devices, deal plan, zone checks, faults).
"""

from station.games.sizhidao.rules import SiZhiDao

GAME = SiZhiDao.name

__all__ = ["GAME", "SiZhiDao"]
