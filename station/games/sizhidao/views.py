"""What each viewer of a Si Zhi Dao table may see (PROCEDURE.md §7.10).

- `public_view`: the console, the dealer, the supervisor and every other player: seats,
  accounts, stacks, the pot and its layers, whose turn it is and until when, the tie-round
  state with its buy-ins, cards as counts (backs) until that seat's showdown begins, and
  the results of finished games. A hand never shown down is never named.
- `player_view`: the same plus that account's own cards from the read on.
"""

from __future__ import annotations

from typing import Any

from station.games.sizhidao.game import (
    ARRANGE_TIMER,
    ARRANGING,
    BETTING,
    BUY_IN_TIMER,
    DECISION_TIMER,
    SiZhiDaoGame,
)


def public_view(game: SiZhiDaoGame, timers_due_s: dict[str, float] | None = None) -> dict[str, Any]:
    timers = timers_due_s or {}
    g = game.game
    view: dict[str, Any] = {
        "seats": {
            s: {"account": a, "stack": game.port.purse.balance(a)}
            for s, a in sorted(game.seating.seats.items())
        },
        "leader": game.seating.leader,
        "ante": game.settings.ante,
        "disconnected": sorted(game.disconnected),
        "game": None,
        "history": list(game.history[-20:]),
    }
    for info in view["seats"].values():
        info["connected"] = info["account"] not in game.disconnected
    if g is None:
        return view
    d = g.deal
    pot = sum(e.amount for e in g.entries)
    gv: dict[str, Any] = {
        "game_id": g.game_id,
        "leader": g.leader,
        "players": dict(g.players),
        "pot": pot,
        "carried": [{"amount": la.amount, "tied": list(la.tied)} for la in g.carried],
        "buy_in": None,
        "deal": None,
    }
    if g.window is not None:
        gv["buy_in"] = {
            "deal_id": g.window_deal_id,
            "price": g.window.price,
            "eligible": list(g.window.eligible),
            "answers": {s: a.as_dict() for s, a in g.window.answers.items()},
            "closes_at": timers.get(BUY_IN_TIMER),
        }
    if d is not None:
        public = d.showdown_from_us is not None
        dv: dict[str, Any] = {
            "deal_id": d.deal_id,
            "phase": d.phase,
            "contestants": list(d.contestants),
            "cards": {s: len(c) for s, c in d.reads.items()},
            "turn": None,
            "decision_due": None,
            "arrange_due": timers.get(ARRANGE_TIMER) if d.phase == ARRANGING else None,
            "totals": {},
            "folded": [],
            "all_in": [],
            "level": None,
            "opened": False,
            "arranged": sorted(d.arranged),
            "showdown": None,
            "layers": [la.as_dict() for la in d.layers],
        }
        if d.betting is not None:
            b = d.betting
            dv.update(
                totals=b.totals(),
                folded=sorted(b.folded()),
                all_in=b.all_in(),
                level=b.level,
                opened=b.opened,
                turn=b.to_act if d.phase == BETTING else None,
                decision_due=timers.get(DECISION_TIMER) if d.phase == BETTING else None,
            )
        if public:
            # from the showdown's start the shown-down hands are public; folded ones never
            dv["showdown"] = {
                s: {"cards": _names(d.reads[s]), **a.as_dict()} for s, a in d.showdown.items()
            }
        # which deal of the game this is (D2 on: tie rounds) and who bought into it
        dv["number"] = d.number
        dv["buy_ins"] = dict(d.buyers)
        gv["deal"] = dv
    gv["tie_rounds"] = max(len(g.deals) - 1, 0)
    view["game"] = gv
    return view


def player_view(
    game: SiZhiDaoGame, account: str, timers_due_s: dict[str, float] | None = None
) -> dict[str, Any]:
    """The public view plus the account's own seat and cards in the deal in progress."""
    view = public_view(game, timers_due_s)
    view["you"] = own_part(game, account)
    return view


def own_part(game: SiZhiDaoGame, account: str) -> dict[str, Any]:
    """What of the table is this account's alone: its seat and its cards in the deal in
    progress (from the read on), for its own view and nobody else's."""
    seat = game.seating.seat_of(account)
    mine: dict[str, Any] = {"account": account, "seat": seat, "cards": [], "deal_id": None}
    g = game.game
    if (
        g is not None
        and g.deal is not None
        and seat in g.deal.reads
        and g.players.get(seat) == account
    ):
        mine["cards"] = _names(g.deal.reads[seat])
        mine["deal_id"] = g.deal.deal_id
    return mine


def own_parts(game: SiZhiDaoGame) -> dict[str, dict[str, Any]]:
    """`own_part` of every seated account and every player of the game in progress."""
    accounts = set(game.seating.seats.values())
    if game.game is not None:
        accounts |= set(game.game.players.values())
    return {a: own_part(game, a) for a in sorted(accounts)}


def _names(cards) -> list[str]:
    return [str(c) if c is not None else "??" for c in cards]
