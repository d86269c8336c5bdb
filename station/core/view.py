"""What the table looks like from outside the station: the console's and dealer's view.

Secrecy (PROCEDURE.md §4) is enforced here, in one place: cards dealt face down are shown
only as backs (a count per position) until the camera has confirmed that position's reveal
after betting closed; burn cards are never shown; the shoe's reads never leave the core.
Everything the console, its API and its event stream show is built from this view or from
output records (which carry no hidden card either: a `hand` exists only after validation).
"""

from __future__ import annotations

from typing import Any

from station.core.faults import FAULT_KINDS
from station.core.inputs import to_s
from station.games.base import BURN


def public_view(core: Any) -> dict[str, Any]:
    shoe = core.shoe
    r = core.round
    view: dict[str, Any] = {
        "table": core.table,
        "game": core.game.name,
        "t": to_s(core.now),
        "state": core.state,
        "phase": core.phase,
        "paused": core.state == "paused",
        "degraded": not core.settings.camera,
        "positions": list(core.game.positions),
        "shoe": None,
        "round": None,
        "faults": [
            {
                "kind": f.kind,
                "round_id": f.round_id,
                "detail": f.detail,
                "since": to_s(f.since_us),
                "meaning": FAULT_KINDS[f.kind][0],
                "options": FAULT_KINDS[f.kind][1],
                "cancel_only": f.cancel_only,
            }
            for f in core.faults
        ],
        "fault_counts": dict(core.fault_counts),
        "link": {
            "up": core.link_up,
            "last_frame": to_s(core.last_valid_us) if core.last_valid_us is not None else None,
            "counters": dict(core.stream.counters),
            "gate": {"LOCK": "LOCKED", "UNLOCK": "UNLOCKED"}.get(core._gate or "", None),
            "led": core._led,
            "device_faults": sorted(core.device_faults),
        },
        "camera": {
            "fitted": core.settings.camera,
            "last_seen": to_s(core.last_camera_us) if core.last_camera_us is not None else None,
        },
        "rounds_settled": core.rounds_settled,
        "history": core.history[-60:],
    }
    if shoe is not None:
        view["shoe"] = {
            "number": shoe.number,
            "confirmed": shoe.confirmed,
            "loaded": shoe.loaded,
            # the first card is shown face up on the table: public
            "first_card": str(shoe.first_card) if shoe.first_card else None,
            "burn_count": shoe.burn_count,
            "burns_left": shoe.burns_left,
            "cards_out": shoe.cards_out,
            "rounds": shoe.rounds_opened,
            "cut_card_seen": shoe.cut_seen,
            "last_round": shoe.last_round_number,
            "ended": shoe.ended,
        }
    if r is not None:
        dealt = {p: 0 for p in core.game.positions}
        for d in r.cards:
            if d.position != BURN:
                dealt[d.position] += 1
        revealed = {
            p: [str(c) for c in r.camera_cards[p]]
            for p in core.game.positions
            if r.closed and r.confirmed.get(p) and p in r.camera_cards
        }
        view["round"] = {
            "round_id": r.round_id,
            "number": r.number,
            "opened_at": to_s(r.opened_us),
            "closes_at": to_s(r.closes_us),
            "betting_open": not r.closed and not r.finished,
            "cards_dealt": sum(dealt.values()),
            "burned": any(d.position == BURN for d in r.cards),
            "dealt": dealt,
            "revealed": revealed,
            "finished": r.finished,
            "last_round": r.last_round,
            "bets": len(r.bets),
            "staked": sum(b.amount for b in r.bets),
        }
    return view
