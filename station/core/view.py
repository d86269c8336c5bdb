"""What the table looks like from outside the station: the console's and dealer's view.

Secrecy (PROCEDURE.md §4) is enforced by the game's `Procedure.view`, the one place that
decides what of the game's facts is public: at a house-banked card table, cards dealt face down are shown
only as backs (a count per position) until the camera has confirmed that position's reveal
after betting closed; burn cards are never shown; the shoe's reads never leave the core.
Everything the console, its API and its event stream show is built from this view or from
output records (which carry no hidden card either: a `hand` exists only after validation).
"""

from __future__ import annotations

from typing import Any

from station.core.inputs import to_s


def public_view(core: Any) -> dict[str, Any]:
    link = core.link
    fault_kinds = core.fault_kinds
    view: dict[str, Any] = {
        "table": core.table,
        "game": core.game.name,
        "t": to_s(core.now_us),
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
                "meaning": fault_kinds[f.kind][0],
                "options": fault_kinds[f.kind][1],
                "cancel_only": f.cancel_only,
            }
            for f in core.faults
        ],
        "fault_counts": dict(core.fault_counts),
        "link": {
            "up": link.up,
            "last_frame": to_s(link.last_valid_us) if link.last_valid_us is not None else None,
            "counters": dict(link.stream.counters),
            # what the shoe reported (STATUS); None until it has answered since its HELLO
            "gate": link.reported_gate,
            "led": link.reported_led,
            # what the station last asked of it
            "gate_asked": {"LOCK": "LOCKED", "UNLOCK": "UNLOCKED"}.get(link.gate or "", None),
            "led_asked": link.led,
            "device_faults": sorted(link.device_faults),
        },
        "camera": {
            "fitted": core.settings.camera,
            "last_seen": to_s(core.last_camera_us) if core.last_camera_us is not None else None,
        },
        "rounds_settled": core.rounds_settled,
        "history": core.history[-60:],
    }
    # the game's part (shoe, round, seats...): the game's procedure decides what is public
    view.update(core.proc.view())
    # what the dealer and the supervisor may do now, and why not the rest: the game says it
    view["decisions"] = core.proc.decisions()
    return view


#: records written for one account alone (PROCEDURE.md §7.3: a seat's cards, to its player)
PRIVATE_RECORDS = frozenset({"private"})


def record_visible(record: dict[str, Any], viewer: str) -> bool:
    """May this viewer see this output record? `viewer` is "public", "dealer",
    "supervisor", or "account:<id>" for one player. A private record goes to its own account
    alone; every other record names no hidden card by construction (a face-down card is
    never in a record until it is public) and goes to everyone."""
    if record.get("type") in PRIVATE_RECORDS:
        return viewer == f"account:{record.get('account')}"
    return True
