"""Scripted table sessions written as traces: a dealer, a shoe and a camera on paper.

`TraceScript` writes what a station would receive at a table of the game it is given — the
shoe's frames (real DS protocol bytes, with heartbeats when the shoe is otherwise silent), the
camera's zone observations (at least once a second), dealer and supervisor actions, wallets and
bets — so a fault drill or a disputed round can be staged exactly and replayed through the table
core. The table's name, its zones, its deal plan and its positions are the game's (a game whose
deal plan is fixed at round open is dealt by `deal` and `full_round`; another game's script
deals its own way on the same lines: its tools, station/games/<game>/tools/).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from firmware_bridge.shoe.codec import encode_frame
from firmware_bridge.tracefile import TraceWriter, text_of_bytes
from station.games import get_game
from station.games.base import BURN, Game

DEAL_GAP = 0.7  # the dealer deals about a card every 0.7 s
CAMERA_LAG = 0.4  # the camera sees a card about 0.4 s after the shoe read it


class TraceScript:
    def __init__(
        self,
        game: Game | str,
        *,
        table: str | None = None,
        camera: bool = True,
        settings: dict[str, Any] | None = None,
        note: str = "",
        boot_id: str = "5EED0001",
    ) -> None:
        #: the game staged (a name: the registry's game of that name)
        self.game = get_game(game) if isinstance(game, str) else game
        #: what the k-th card of a round is for, and who holds hands, in reveal order
        self.plan: tuple[str, ...] = tuple(self.game.deal_plan)
        self.positions: tuple[str, ...] = tuple(self.game.positions)
        # the first table of the game's, by default
        table = table if table is not None else f"{self.game.table_prefix}01"
        self.header = {"trace": 1, "table": table, "game": self.game.name, "camera": camera,
                       "settings": settings or {"betting_seconds": 15}, "note": note}
        self.camera_on = camera
        self.betting_seconds = float(self.header["settings"].get("betting_seconds", 15))
        self.t = 0.0
        self.lines: list[dict[str, Any]] = []
        self.seq = 0
        self._last_shoe = 0.0
        self._last_camera = 0.0
        self.zones: dict[str, list[str]] = {z: [] for z in self.game.zones}
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
            self.camera({BURN: [first_card]})
        self.wait(1.5)
        for c in burns:
            self.card(c).wait(DEAL_GAP)
        if self.camera_on:
            self.camera({BURN: []})
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
            pos = place.get(k, self.plan[k])
            if pos != BURN and camera and self.camera_on:
                self.camera({pos: [*self.zones[pos], "??"]})
            self.wait(DEAL_GAP - CAMERA_LAG)
        return self

    def until_closed(self) -> TraceScript:
        close = self.opened_at + self.betting_seconds
        if self.t < close:
            self.wait(close - self.t + 0.5)
        return self

    def reveal(self, hands: dict[str, Sequence[str]], order: Sequence[str] | None = None) -> TraceScript:
        """The hands turned face up, position by position (by default in reveal order)."""
        for p in self.positions if order is None else order:
            if p in hands:
                self.camera({p: list(hands[p])}).wait(1.0)
        return self

    def clear_zones(self) -> TraceScript:
        if self.camera_on:
            self.wait(2).camera({p: [] for p in self.positions})
        return self.wait(2)

    def full_round(self, cards: Sequence[str], bets: Sequence[tuple[str, str, int]] = ()) -> TraceScript:
        """A clean round: open, bets, the round's cards dealt by the plan, close, the hands
        revealed in reveal order, the zones cleared."""
        assert len(cards) == len(self.plan)
        self.open_round()
        for a, s, amt in bets:
            self.bet(a, s, amt).wait(0.1)
        self.deal(cards)
        self.until_closed()
        self.reveal(self.hands_of(cards))
        return self.clear_zones()

    def hands_of(self, cards: Sequence[str]) -> dict[str, list[str]]:
        """The cards each position holds after a round dealt by the plan."""
        return hands_by_plan(self.plan, self.positions, cards)

    # ---- output
    def write(self, path: str | Path) -> Path:
        p = Path(path)
        with TraceWriter(p, self.header) as w:
            for line in self.lines:
                w.write(line)
        return p


def hands_by_plan(plan: Sequence[str], positions: Sequence[str],
                  cards: Sequence[str]) -> dict[str, list[str]]:
    """The cards each position holds after a round dealt by `plan` (its burns aside)."""
    hands: dict[str, list[str]] = {p: [] for p in positions}
    for pos, c in zip(plan, cards, strict=True):
        if pos != BURN:
            hands[pos].append(c)
    return hands
