"""Fault kinds of PROCEDURE.md §3 (the games add and reword theirs), what each means to the
floor supervisor, and what the supervisor may do about it.

The words are templates: `{link_lost_seconds:g}` and the like name a table setting, and the
kernel fills them with the table's own (`fault_words`), so the floor reads the numbers the
table runs with, in the game's words."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# kind -> (what it means in words, the supervisor's options)
FAULT_KINDS: dict[str, tuple[str, str]] = {
    "early_card": ("A card left the shoe when none was due.", "resume (card set aside), cancel"),
    "extra_card": ("A card beyond the round's deal was drawn.", "cancel"),
    "burn_count": ("A card appeared in a position zone while burn cards remain.",
                   "resume after correcting, cancel"),
    "order": ("Cards in the position zones do not follow the deal order.",
              "resume after correcting, cancel"),
    "placement_timeout": ("For more than {placement_timeout_seconds:g} s the camera saw a different number of dealt cards "
                          "than the shoe reported.", "resume, cancel"),
    "premature_reveal": ("A card was turned face up while betting is open.", "cancel"),
    "card_mismatch": ("Camera and shoe disagree on a card.", "resume after correcting, cancel"),
    "unread_card": ("The shoe could not read a card dealt to a position.",
                    "resume (camera reads it at reveal), cancel"),
    "foreign_card": ("A card that cannot belong to this shoe (ninth copy or repeated code).",
                     "cancel"),
    "cut_card_early": ("The cut card came out before the first round opened.",
                       "end the shoe, or resume"),
    "shoe_exhausted": ("The shoe is empty but the round still needs cards.", "cancel"),
    "device_fault": ("The shoe reports a hardware fault.", "resume when cleared, cancel"),
    "link_lost": ("No valid frame from the shoe for {link_lost_seconds:g} s.", "resume once the link is back, cancel"),
    "shoe_rebooted": ("The shoe restarted (new boot id).",
                      "in a round: cancel; between rounds: resume"),
    "camera_lost": ("No camera observation for {camera_lost_seconds:g} s while a round is open.",
                    "resume once frames are back, cancel"),
    "reveal_timeout": ("A revealed position was not confirmed by the camera within "
                       "{reveal_timeout_seconds:g} s.",
                       "resume, cancel"),
}

#: the kinds the kernel itself raises at every game's table (core/kernel.py: the shoe's link,
#: its reboots and hardware faults, the camera going quiet): every game words each of them
RAISED_BY_THE_KERNEL = ("link_lost", "shoe_rebooted", "device_fault", "camera_lost")

#: the kernel's own kind, at every game's table: facts the procedure has no rule to follow
#: (a defect of the station, not of the table). The table pauses instead of the station
#: stopping; resume goes to wherever the facts stand, cancel voids the round as always.
STATION_ERROR = "station_error"
KERNEL_FAULT_KINDS: dict[str, tuple[str, str]] = {
    STATION_ERROR: ("The station could not follow the table (a station defect; the detail "
                    "says where). Nothing is settled while it is paused.", "resume, cancel"),
}


def fault_words(kinds: Mapping[str, tuple[str, str]], settings: Any) -> dict[str, tuple[str, str]]:
    """The kinds' words with the table's settings filled in; a template that names no
    setting of the table is an error naming the kind."""
    values = settings.values()
    out = {}
    for kind, words in kinds.items():
        try:
            out[kind] = tuple(w.format_map(values) for w in words)
        except (KeyError, ValueError, IndexError) as e:
            raise ValueError(f"fault kind {kind!r}: its words name no table setting ({e})") from None
    return out  # type: ignore[return-value]


@dataclass(slots=True)
class ActiveFault:
    kind: str
    round_id: str | None
    detail: str
    since_us: int
    in_round: bool
    key: str | None = None  # what it is about, where one kind can concern several things
    #: only cancel can clear it (the game decides: station/games/base.py `is_cancel_only`)
    cancel_only: bool = False
