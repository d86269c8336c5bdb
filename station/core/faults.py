"""Fault kinds of PROCEDURE.md §3 (the games add and reword theirs), what each means to the floor supervisor, and what the
supervisor may do about it."""

from __future__ import annotations

from dataclasses import dataclass

# kind -> (what it means in words, the supervisor's options)
FAULT_KINDS: dict[str, tuple[str, str]] = {
    "early_card": ("A card left the shoe when none was due.", "resume (card set aside), cancel"),
    "extra_card": ("A 14th card was drawn in this round.", "cancel"),
    "burn_count": ("A card appeared in a position zone while burn cards remain.",
                   "resume after correcting, cancel"),
    "order": ("Cards in the position zones do not follow the deal order.",
              "resume after correcting, cancel"),
    "placement_timeout": ("For more than 5 s the camera saw a different number of dealt cards "
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
    "link_lost": ("No valid frame from the shoe for 3 s.", "resume once the link is back, cancel"),
    "shoe_rebooted": ("The shoe restarted (new boot id).",
                      "in a round: cancel; between rounds: resume"),
    "camera_lost": ("No camera observation for 3 s while a round is open.",
                    "resume once frames are back, cancel"),
    "reveal_timeout": ("A revealed position was not confirmed by the camera within 60 s.",
                       "resume, cancel"),
}

#: the kernel's own kind, at every game's table: facts the procedure has no rule to follow
#: (a defect of the station, not of the table). The table pauses instead of the station
#: stopping; resume goes to wherever the facts stand, cancel voids the round as always.
STATION_ERROR = "station_error"
KERNEL_FAULT_KINDS: dict[str, tuple[str, str]] = {
    STATION_ERROR: ("The station could not follow the table (a station defect; the detail "
                    "says where). Nothing is settled while it is paused.", "resume, cancel"),
}

#: kinds that only `cancel_round` (or `end_shoe` outside a round) can clear
CANCEL_ONLY = frozenset({"extra_card", "premature_reveal", "foreign_card", "shoe_exhausted"})


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
