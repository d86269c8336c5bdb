"""Scripted Si Zhi Dao sessions written as traces (TRACES.md §1.1): players on the platform,
a dealer, a one-deck shoe and a camera on paper.

`SzTraceScript` writes what a station at a Si Zhi Dao table receives — the shoe's frames (real
DS protocol bytes, heartbeats when it is otherwise silent), the camera's seat zones (at least
once a second), dealer and supervisor actions, wallets and `player` lines — so a tie round, an
all-in, a disconnect or a fault can be staged exactly and replayed through the station.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from firmware_bridge.shoe.codec import encode_frame
from station.games.sizhidao.seats import SEATS
from station.games.sizhidao.table import deal_plan

DEAL_GAP_S = 0.7  # the dealer deals about a card every 0.7 s
CAMERA_LAG_S = 0.4  # the camera sees a card about 0.4 s after the shoe read it


class SzTraceScript:
    def __init__(
        self,
        *,
        table: str = "SZ-01",
        settings: Mapping[str, Any] | None = None,
        note: str = "",
        boot_id: str = "5EED5Z01",
    ) -> None:
        merged = {"ante": 100, "decision_seconds": 15, "arrange_seconds": 10, "buy_in_seconds": 10}
        merged.update(settings or {})
        self.header = {
            "trace": 1,
            "table": table,
            "game": "sizhidao",
            "camera": True,
            "settings": merged,
            "note": note,
        }
        self.t = 0.0
        self.lines: list[dict[str, Any]] = []
        self.seq = 0
        self._last_shoe = 0.0
        self._last_camera = 0.0
        self.zones: dict[str, list[str]] = {s: [] for s in SEATS}
        #: a silent link sends no heartbeat; a silent camera reports nothing
        self.link_silent = False
        self.camera_silent = False
        self.shoe("HELLO", "1", "DS8", "SZ-0042", "2.1.0", boot_id)

    # ---- raw lines
    #: called with every line as it is written (a live table fed in lockstep)
    on_line: Any = None

    def _add(self, **line: Any) -> SzTraceScript:
        entry = {"t": round(self.t, 3), **line}
        self.lines.append(entry)
        if self.on_line is not None:
            self.on_line(entry)
        return self

    def wait(self, seconds: float) -> SzTraceScript:
        """Let time pass: the shoe sends HB after 1 s of silence, the camera reports `{}` at
        least every 0.9 s."""
        end = round(self.t + seconds, 6)
        while True:
            next_hb = self._last_shoe + 1.0 if not self.link_silent else float("inf")
            next_cam = self._last_camera + 0.9 if not self.camera_silent else float("inf")
            nxt = max(min(next_hb, next_cam), self.t)
            if nxt > end:
                break
            self.t = nxt
            if next_hb <= nxt:  # also a heartbeat overdue after a silence
                self.shoe("HB", str(int(self.t * 1000)))
            else:
                self.camera({})
        self.t = end
        return self

    def at_least(self, t: float) -> SzTraceScript:
        """Wait until time `t` (no wait when already past it)."""
        return self.wait(max(0.0, t - self.t))

    def shoe(self, type_: str, *fields: str) -> SzTraceScript:
        if type_ != "HELLO":
            self.seq = 1 if self.seq >= 65535 else self.seq + 1
        frame = encode_frame(self.seq if type_ != "HELLO" else 0, type_, *fields)
        self._last_shoe = self.t
        return self._add(shoe=frame.decode("latin-1"))

    def camera(self, zones: Mapping[str, Sequence[str]]) -> SzTraceScript:
        for z, cs in zones.items():
            self.zones[z] = list(cs)
        self._last_camera = self.t
        return self._add(camera={z: list(cs) for z, cs in zones.items()})

    def dealer(self, action: str) -> SzTraceScript:
        return self._add(dealer=action)

    def supervisor(self, action: str, user: str = "sup1") -> SzTraceScript:
        return self._add(supervisor=action, user=user)

    def wallet(self, account: str, balance: int) -> SzTraceScript:
        return self._add(wallet={"account": account, "balance": balance})

    def player(self, account: str, action: str, **fields: Any) -> SzTraceScript:
        return self._add(player={"account": account, "action": action, **fields})

    def end(self, after: float = 1.0) -> SzTraceScript:
        self.wait(after)
        return self._add(end=True)

    # ---- the procedure, done right
    def sit(
        self, pairs: Sequence[tuple[str, str]], balance: int | Mapping[str, int] = 10_000
    ) -> SzTraceScript:
        for account, seat in pairs:
            amount = balance if isinstance(balance, int) else balance[account]
            self.wallet(account, amount).wait(0.2)
            self.player(account, "sit", seat=seat).wait(0.5)
        return self

    def shuffle(self) -> SzTraceScript:
        """A fresh deck: new_shoe, the supervisor's shuffle check, LOAD."""
        self.dealer("new_shoe").wait(2)
        self.supervisor("confirm_shuffle").wait(1)
        return self.shoe("LOAD").wait(2)

    def deal(
        self,
        hands: Mapping[str, Sequence[str]],
        leader: str,
        *,
        place: Mapping[int, str] | None = None,
        unseen: Sequence[int] = (),
        stop_after: int | None = None,
    ) -> SzTraceScript:
        """Deal the hands one card at a time by the plan (from the seat after the leader),
        face down; the deal ends with the last read (betting starts then). A dealer's
        mistakes: `place` puts card k in another seat's zone, `unseen` cards never reach the
        camera's view, `stop_after` deals only that many cards. A card `??` is UNREAD."""
        plan = deal_plan(list(hands), leader, 4)
        taken = {s: 0 for s in hands}
        for k, seat in enumerate(plan):
            if stop_after is not None and k >= stop_after:
                break
            card = hands[seat][taken[seat]]
            if card == "??":
                self.shoe("UNREAD")
            else:
                self.shoe("CARD", card)
            taken[seat] += 1
            if k == len(plan) - 1:
                self.dealt_at = self.t
            self.wait(CAMERA_LAG_S)
            zone = (place or {}).get(k, seat)
            if k not in unseen:
                self.camera({zone: [*self.zones[zone], "??"]})
            self.wait(DEAL_GAP_S - CAMERA_LAG_S)
        return self

    def card(self, card: str) -> SzTraceScript:
        """One more card out of the shoe (an early or extra card)."""
        return self.shoe("CARD", card)

    def reveal(self, hands: Mapping[str, Sequence[str]]) -> SzTraceScript:
        """The dealer turns the shown-down hands face up, one seat at a time."""
        self.wait(1.0)
        for seat, cards in hands.items():
            self.camera({seat: list(cards)}).wait(0.8)
        return self

    def clear(self) -> SzTraceScript:
        """About 3 s after the showdown the zones are cleared."""
        self.wait(3.0)
        return self.camera({s: [] for s, cs in self.zones.items() if cs}).wait(1.0)

    # ---- output
    def write(self, path: str | Path) -> Path:
        p = Path(path)
        with open(p, "w", encoding="utf-8") as f:
            f.write(json.dumps(self.header) + "\n")
            for line in self.lines:
                f.write(json.dumps(line, ensure_ascii=False) + "\n")
        return p
