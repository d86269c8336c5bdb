"""What a viewer may see of a Pai Gow round beyond its figures: the doors, the dice.

Cards are dealt face up after the close, but a door is shown only once the camera has
confirmed it (two readable cards equal, as a set, to the shoe's two reads for that door):
before that nothing of it leaves the station but how many cards it has. A confirmed door
shows its cards in deal order, its hand and its points; the outcome against the banker
comes with the validated hand (the `hand` record). The dice are public from the throw: the
dealer's latest entry, what the tray shows (counted only after the close), and the dice and
first door once they are known.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from station.games.paigow.hands import evaluate

if TYPE_CHECKING:
    from station.games.paigow.procedure import PaiGowProcedure


def round_doors(proc: PaiGowProcedure) -> dict[str, Any]:
    """The round's doors and dice, to be added to the view's `round`."""
    r = proc.round
    assert r is not None
    positions = proc.game.positions
    dealt = dict.fromkeys(positions, 0)
    doors: dict[str, dict[str, Any]] = {}
    revealed: dict[str, list[str]] = {}
    deal = r.deal
    if deal is not None:
        for d in deal.cards:
            dealt[d.position] += 1
    for p in positions:
        door: dict[str, Any] = {"dealt": dealt[p], "confirmed": False, "cards": None,
                                "hand": None, "points": None}
        if deal is not None and deal.confirmed.get(p):
            cards = [d.card for d in deal.position_cards(p)]
            if any(c is None for c in cards):  # an unread card the camera supplied
                cards = list(deal.camera_cards.get(p, []))
            if len(cards) == 2 and all(c is not None for c in cards):
                names = [str(c) for c in cards]
                door.update(confirmed=True, cards=names, **evaluate(names).as_dict())
                revealed[p] = names
        doors[p] = door
    return {
        "doors": doors,
        "dealt": dealt,
        "revealed": revealed,
        "cards_dealt": sum(dealt.values()),
        "dice_entry": list(r.entry) if r.entry is not None else None,
        "dice_tray": list(r.tray) if r.tray is not None else None,
        "staked": sum(b.amount for b in r.bets),
    }
