"""Scripted table sessions written as traces: a dealer, a shoe and a camera on paper.

`TraceScript` writes what a station would receive at a Pok Deng table — the shoe's frames
(real DS protocol bytes, with heartbeats when the shoe is otherwise silent), the camera's zone
observations (at least once a second), dealer and supervisor actions, wallets and bets — so a
fault drill or a disputed round can be staged exactly and replayed through the table core.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from firmware_bridge.shoe.codec import encode_frame
from firmware_bridge.tracefile import TraceWriter, text_of_bytes
from station.games.pokdeng import PokDeng

GAME = PokDeng()  # the game this script stages: its plan, positions and zones
PLAN = GAME.deal_plan
POSITIONS = GAME.positions
CARDS_PER_ROUND = GAME.cards_per_round
DEAL_GAP = 0.7  # the dealer deals about a card every 0.7 s
CAMERA_LAG = 0.4  # the camera sees a card about 0.4 s after the shoe read it


class TraceScript:
    def __init__(
        self,
        *,
        table: str = "PD-01",
        camera: bool = True,
        settings: dict[str, Any] | None = None,
        note: str = "",
        boot_id: str = "5EED0001",
    ) -> None:
        self.header = {"trace": 1, "table": table, "game": GAME.name, "camera": camera,
                       "settings": settings or {"betting_seconds": 15}, "note": note}
        self.camera_on = camera
        self.betting_seconds = float(self.header["settings"].get("betting_seconds", 15))
        self.t = 0.0
        self.lines: list[dict[str, Any]] = []
        self.seq = 0
        self._last_shoe = 0.0
        self._last_camera = 0.0
        self.zones: dict[str, list[str]] = {z: [] for z in GAME.zones}
        self.link_silent = False
        self.hello(boot_id)

    # ---- raw lines
    def _add(self, **line: Any) -> None:
        self.lines.append({"t": round(self.t, 3), **line})

    def wait(self, seconds: float) -> TraceScript:
        """Let time pass; the shoe sends HB after 1 s of silence, the camera reports `{}`
        at least every 0.9 s (unless silenced)."""
        end = round(self.t + seconds, 6)
        while True:
            next_hb = self._last_shoe + 1.0 if not self.link_silent else float("inf")
            next_cam = self._last_camera + 0.9 if self.camera_on and self.camera_alive else float("inf")
            nxt = max(min(next_hb, next_cam), self.t)
            if nxt > end:
                break
            self.t = nxt
            if nxt == next_hb:
                self.shoe("HB", str(int(self.t * 1000)))
            else:
                self.camera({})
        self.t = end
        return self

    camera_alive = True

    def shoe_bytes(self, data: bytes) -> TraceScript:
        self._add(shoe=text_of_bytes(data))
        self._last_shoe = self.t
        return self

    def shoe(self, type_: str, *fields: str) -> TraceScript:
        if type_ != "HELLO":
            self.seq = 1 if self.seq >= 65535 else self.seq + 1
        return self.shoe_bytes(encode_frame(self.seq if type_ != "HELLO" else 0, type_, *fields))

    def hello(self, boot_id: str) -> TraceScript:
        self.seq = 0
        return self.shoe("HELLO", "1", "DS8", "SH-0042", "2.1.0", boot_id)

    def camera(self, zones: dict[str, list[str]]) -> TraceScript:
        for z, cs in zones.items():
            self.zones[z] = list(cs)
        self._add(camera={z: list(cs) for z, cs in zones.items()})
        self._last_camera = self.t
        return self

    def dealer(self, action: str, **payload: Any) -> TraceScript:
        """A dealer line; `payload`: the fields the game's action carries."""
        self._add(dealer=action, **payload)
        return self

    def supervisor(self, action: str, user: str = "sup1") -> TraceScript:
        self._add(supervisor=action, user=user)
        return self

    def wallet(self, account: str, balance: int) -> TraceScript:
        self._add(wallet={"account": account, "balance": balance})
        return self

    def bet(self, account: str, spot: str, amount: int) -> TraceScript:
        self._add(bet={"account": account, "spot": spot, "amount": amount})
        return self

    def end(self, after: float = 1.0) -> TraceScript:
        self.wait(after)
        self._add(end=True)
        return self

    # ---- the procedure, done right
    def card(self, card: str, code: str | None = None) -> TraceScript:
        if card == "??":
            return self.shoe("UNREAD")
        if card == "CUT":
            return self.shoe("CUT")
        return self.shoe("CARD", card, *([code] if code else []))

    def start_shoe(self, first_card: str, burns: Sequence[str]) -> TraceScript:
        """new_shoe, the supervisor's shuffle check, LOAD, the first card shown in BURN,
        the burns, BURN cleared."""
        self.dealer("new_shoe").wait(2)
        self.supervisor("confirm_shuffle").wait(1)
        self.shoe("LOAD").wait(2)
        self.card(first_card).wait(CAMERA_LAG)
        if self.camera_on:
            self.camera({"BURN": [first_card]})
        self.wait(1.5)
        for c in burns:
            self.card(c).wait(DEAL_GAP)
        if self.camera_on:
            self.camera({"BURN": []})
        return self.wait(2)

    def open_round(self) -> TraceScript:
        self.dealer("open_betting")
        self.opened_at = self.t
        return self.wait(1.0)

    def deal(self, cards: Iterable[str], *, start: int = 0, place: dict[int, str] | None = None,
             camera: bool = True) -> TraceScript:
        """Deal round cards by the plan from plan index `start`. `place` sends card k to
        another zone than the plan's (a dealer's mistake)."""
        place = place or {}
        for k, c in enumerate(cards, start):
            self.card(c).wait(CAMERA_LAG)
            pos = place.get(k, PLAN[k])
            if pos != "BURN" and camera and self.camera_on:
                self.camera({pos: [*self.zones[pos], "??"]})
            self.wait(DEAL_GAP - CAMERA_LAG)
        return self

    def until_closed(self) -> TraceScript:
        close = self.opened_at + self.betting_seconds
        if self.t < close:
            self.wait(close - self.t + 0.5)
        return self

    def reveal(self, hands: dict[str, Sequence[str]], order: Sequence[str] = POSITIONS) -> TraceScript:
        for p in order:
            if p in hands:
                self.camera({p: list(hands[p])}).wait(1.0)
        return self

    def clear_zones(self) -> TraceScript:
        if self.camera_on:
            self.wait(2).camera({p: [] for p in POSITIONS})
        return self.wait(2)

    def full_round(self, cards13: Sequence[str], bets: Sequence[tuple[str, str, int]] = ()) -> TraceScript:
        """A clean round: open, bets, burn + 12 cards, close, reveal P1–P5 then B, clear."""
        assert len(cards13) == CARDS_PER_ROUND
        self.open_round()
        for a, s, amt in bets:
            self.bet(a, s, amt).wait(0.1)
        self.deal(cards13)
        self.until_closed()
        self.reveal(hands_of(cards13))
        return self.clear_zones()

    # ---- output
    def write(self, path: str | Path) -> Path:
        p = Path(path)
        with TraceWriter(p, self.header) as w:
            for line in self.lines:
                w.write(line)
        return p


def hands_of(cards13: Sequence[str]) -> dict[str, list[str]]:
    """Which two cards each position holds after a round dealt by the plan."""
    hands: dict[str, list[str]] = {p: [] for p in POSITIONS}
    for pos, c in zip(PLAN, cards13, strict=True):
        if pos != "BURN":
            hands[pos].append(c)
    return hands
