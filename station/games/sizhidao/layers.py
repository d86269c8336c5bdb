"""The pot in layers (RULES.md §3.6, PROCEDURE.md §7.6).

The pot of a deal is built from, in this order:

1. the layers carried from the previous deal's showdown (tie rounds only), in carried order.
   Each is contested by its tied players and every buyer of this tie round, less those who
   folded in this deal; the tie round's buy-ins join the first of them;
2. the layers of this deal's betting: one layer per distinct total of the players still in
   (all-in amounts and the level), each contested by the players still in whose total
   reaches it, holding what every player of the deal (folded ones too) put in up to that
   total. A layer of one contestant (an uncalled excess) is won by that player.

Money no contestant can win (a carried layer whose contestants all folded, or what a folded
player put in above every player still in) forms a layer without a contestant; it joins the
next layer that has one, else the one before.

Every amount is an integer of minor units; the layers always add up to exactly what was put
in (carried + buy-ins + every total).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from station.games.sizhidao.arrange import Arrangement
from station.games.sizhidao.seats import in_seat_order
from station.games.sizhidao.showdown import decide


@dataclass(frozen=True, slots=True)
class CarriedLayer:
    """A layer no one won, going on to a tie round with its tied players."""

    amount: int
    tied: tuple[str, ...]


@dataclass(slots=True)
class Layer:
    amount: int
    contestants: list[str]
    winner: str | None = None
    tied: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        """An entry of the `layers` record (TRACES.md §3.1)."""
        return {
            "amount": self.amount,
            "contestants": list(self.contestants),
            "winner": self.winner,
            "tied": list(self.tied),
        }


def build_layers(
    totals: Mapping[str, int],
    folded: Collection[str],
    carried: Sequence[CarriedLayer] = (),
    buy_ins: Mapping[str, int] | None = None,
) -> list[Layer]:
    """The layers of a deal's pot, with their contestants (not yet decided).

    `totals`: every player of the deal -> what it put in this deal's betting (0 allowed);
    `folded`: the players of the deal who folded in it; `buy_ins`: buyer -> price paid."""
    buy_ins = dict(buy_ins or {})
    for name, amounts in (("total", totals), ("buy-in", buy_ins)):
        for seat, amount in amounts.items():
            if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
                raise ValueError(
                    f"{name} of {seat} must be a whole amount of 0 or more, got {amount!r}"
                )
    if buy_ins and not carried:
        raise ValueError("buy-ins without a carried layer: a buy-in is only for a tie round")
    still_in = {s for s in totals if s not in folded}
    raw: list[Layer] = []
    for i, layer in enumerate(carried):
        contestants = (set(layer.tied) | set(buy_ins)) - set(folded)
        amount = layer.amount + (sum(buy_ins.values()) if i == 0 else 0)
        raw.append(Layer(amount, in_seat_order(contestants)))

    caps = sorted({totals[s] for s in still_in if totals[s] > 0})
    below = 0
    for cap in caps:
        amount = sum(min(t, cap) - min(t, below) for t in totals.values())
        raw.append(Layer(amount, in_seat_order(s for s in still_in if totals[s] >= cap)))
        below = cap
    excess = sum(t - min(t, below) for t in totals.values())
    if excess:
        raw.append(Layer(excess, []))
    return _merge_uncontested(raw)


def _merge_uncontested(raw: list[Layer]) -> list[Layer]:
    out: list[Layer] = []
    pending = 0  # uncontested money waiting for the next layer that has a contestant
    for layer in raw:
        if not layer.contestants:
            pending += layer.amount
            continue
        out.append(Layer(layer.amount + pending, layer.contestants))
        pending = 0
    if pending:
        if not out:
            raise ValueError("no layer of the pot has a contestant: somebody must still be in")
        out[-1].amount += pending
    return out


def decide_layers(layers: Sequence[Layer], arrangements: Mapping[str, Arrangement]) -> list[Layer]:
    """Each layer to the contestant who beats every other contestant, else tied (carried).

    A layer of one contestant needs no arrangement (a player left alone is never shown)."""
    out = []
    for layer in layers:
        d = decide(arrangements, layer.contestants)
        out.append(Layer(layer.amount, list(layer.contestants), d.winner, list(d.tied)))
    return out


def payouts(layers: Sequence[Layer]) -> dict[str, int]:
    """Seat -> what it wins, from decided layers (winners only)."""
    out: dict[str, int] = {}
    for layer in layers:
        if layer.winner is not None:
            out[layer.winner] = out.get(layer.winner, 0) + layer.amount
    return out


def carried_on(layers: Sequence[Layer]) -> list[CarriedLayer]:
    """The decided layers no one won, in order: they go on to a tie round."""
    return [CarriedLayer(la.amount, tuple(la.tied)) for la in layers if la.winner is None]


def left_alone(players: Collection[str], folded: Collection[str]) -> str | None:
    """The one player of a deal still in when every other has folded, else None."""
    still_in = [s for s in players if s not in folded]
    return still_in[0] if len(still_in) == 1 else None


def buy_in_price(carried: Sequence[CarriedLayer]) -> int:
    """Half of the carried layers' sum, rounded down to the minor unit."""
    return sum(la.amount for la in carried) // 2
