"""What lies on the table: the truth the synthetic camera renders and the recogniser should
report. The demo's dealer and the tests drive it; the camera thread reads it, so every
method takes the scene's lock and the renderer works on a frozen copy.

What lies where is the table's game's to say, never a zone's name: the zones and their kinds
(cards, or a dice tray) come from the caller, or, for a scene made without them, from the
layout of the camera that films it (`lay_out`), which carries the game's declaration.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from firmware_bridge.camera.dice_render import DicePerturbations, PlacedDie, Tray, place_dice
from firmware_bridge.camera.faces import face_text
from firmware_bridge.camera.layout import CARDS, DICE, Layout
from firmware_bridge.camera.seat_poses import SeatPlan, dealt_pose, new_plan, shown_poses
from firmware_bridge.cards import parse_card

FACE_DOWN = "??"
UNREADABLE = "XX"
CUT = "CUT"
#: how dice land in the tray at our tables: now and then touching each other or the rim, seen
#: a little off axis (the scene's placement; the picture's own imperfections are the camera's)
TABLE_THROWS = DicePerturbations(tilt_mm=1.5, touching_rate=0.15, rim_rate=0.1)


@dataclass(frozen=True, slots=True)
class PlacedCard:
    """One card as it lies in its zone. Offsets and turn are in table millimetres and unit
    fractions, fixed when the card lands, so it stays put from frame to frame."""

    card: str
    face_up: bool
    code: str | None
    dx_mm: float  # from the zone centre
    dy_mm: float
    turn: float  # -1..1: fraction of the camera's allowed rotation (perturbation data)
    misprint: str | None = None  # a faulty print: the other symbol says this
    angle_deg: float = 0.0  # the card's own turn as laid (a seat's fan), before `turn`
    seat_turn: float | None = None  # a seat's card: the group's turn (-1..1), no hand spread


@dataclass(frozen=True, slots=True)
class SceneState:
    """A frozen copy of the scene for one frame."""

    zones: dict[str, tuple[PlacedCard, ...]]
    cut_zone: str | None
    cut_visible: bool
    cut_turn: float
    hand_zone: str | None
    hand_seed: int
    dice: tuple[PlacedDie, ...] = field(default=())  # in the tray (the zone of kind dice)


class TableScene:
    """The table's contents. Thread-safe; `snapshot()` is the truth as an observation.

    `zones`: the table's zones (None: those of the layout it is first filmed through);
    `zone_kinds`: zone -> what lies there when not cards (a dice tray: "dice"; None: as the
    layout it is filmed through says)."""

    def __init__(self, zones: Sequence[str] | None = None, seed: int = 0, *,
                 zone_kinds: Mapping[str, str] | None = None,
                 throws: DicePerturbations = TABLE_THROWS, tray: Tray | None = None,
                 seat_zones: tuple[str, ...] | list[str] = ()) -> None:
        self._zones = tuple(zones) if zones is not None else ()
        self._zones_given = zones is not None
        self._kinds: dict[str, str] = {}
        self._kinds_given = zone_kinds is not None
        # zones whose cards are laid as a seat's (CARD_FACES.md "Seats": a row or fan, then two pairs)
        self._seat_zones = frozenset(seat_zones)
        unknown = self._seat_zones - set(self._zones)
        if unknown:
            raise ValueError(f"seat zone(s) {sorted(unknown)} are not zones of this table")
        self._set_kinds(zone_kinds or {})
        self._seat_plans: dict[str, tuple[SeatPlan, float]] = {}
        self.throws = throws
        self.tray = tray or Tray()
        self._dice: tuple[PlacedDie, ...] = ()
        self._lock = threading.Lock()
        self._rng = random.Random(seed)
        self._cards: dict[str, list[PlacedCard]] = {z: [] for z in self._zones}
        self._cut_visible = False
        self._cut_zone: str | None = None
        self._cut_turn = 0.0
        self._hand_zone: str | None = None
        self._hand_seed = 0

    @property
    def zones(self) -> tuple[str, ...]:
        return self._zones

    def _set_kinds(self, kinds: Mapping[str, str]) -> None:
        strays = sorted(set(kinds) - set(self._zones))
        if strays:
            raise ValueError(f"zone kind(s) for {strays}, not zones of this table")
        trays = sorted(z for z, k in {**self._kinds, **kinds}.items() if k == DICE)
        if len(trays) > 1:
            raise ValueError(f"one dice tray to a table, not {trays}")
        self._kinds.update({z: k for z, k in kinds.items() if k != CARDS})

    def lay_out(self, layout: Layout) -> None:
        """The table as the layout of a camera filming it says, for what the scene's maker
        left unsaid: the layout's zones when none were given, and each zone's kind when no
        kinds were (a rig's cameras each add theirs)."""
        with self._lock:
            if not self._zones_given:
                new = [z for z in layout.zones if z not in self._cards]
                self._zones = (*self._zones, *new)
                self._cards.update({z: [] for z in new})
            if not self._kinds_given:
                self._set_kinds({z: k for z, k in layout.zone_kinds.items() if z in self._cards})

    @property
    def tray_zone(self) -> str | None:
        """The zone the dice tray lies in (its kind is dice), or None: no tray here."""
        return next((z for z in self._zones if self._kinds.get(z) == DICE), None)

    def _check_zone(self, zone: str) -> None:
        if zone not in self._cards:
            raise ValueError(f"no zone {zone!r} on this table (zones: {', '.join(self._zones)})")

    def _placement(self, index: int) -> tuple[float, float, float]:
        # A hand's second card overlaps the first, lower and a little to the right, leaving
        # the first card's top-left symbol in view (CARD_FACES.md prints two so that one
        # survives the overlap); further (misplaced) cards keep stepping the same way.
        rng = self._rng
        step_x = rng.uniform(6.0, 15.0)
        step_y = rng.uniform(31.0, 40.0)
        k = index - 0.5
        dx = k * step_x + rng.uniform(-2.5, 2.5)
        dy = k * step_y + rng.uniform(-2.5, 2.5)
        return dx, dy, rng.uniform(-1.0, 1.0)

    def deal(self, zone: str, card: str, face_up: bool = False, code: str | None = None, *, misprint: str | None = None) -> None:
        """A card lands in `zone`. `code` is its printed code on serialized decks."""
        self._check_zone(zone)
        canonical = str(parse_card(card))
        face_text(canonical, code)  # validates the code early, with a clear error
        with self._lock:
            if zone in self._seat_zones:
                self._cards[zone].append(self._seat_card(zone, canonical, bool(face_up), code, misprint))
                return
            dx, dy, turn = self._placement(len(self._cards[zone]))
            self._cards[zone].append(PlacedCard(canonical, bool(face_up), code, dx, dy, turn, misprint))

    def _seat_card(self, zone: str, card: str, face_up: bool, code: str | None, misprint: str | None) -> PlacedCard:
        if not self._cards[zone] or zone not in self._seat_plans:
            self._seat_plans[zone] = (new_plan(self._rng), self._rng.uniform(-1.0, 1.0))
        plan, group_turn = self._seat_plans[zone]
        dx, dy, ang = dealt_pose(plan, len(self._cards[zone]))
        return PlacedCard(card, face_up, code, dx, dy, self._rng.uniform(-1.0, 1.0), misprint,
                          angle_deg=ang, seat_turn=group_turn)

    def show_down(self, zone: str, front: Sequence[str], back: Sequence[str]) -> None:
        """The dealer turns a seat's four cards face up and lays them as the player arranged
        them: `front` (two cards) nearer the dealer, `back` behind (CARD_FACES.md, "Seats").
        The cards must be the ones lying in the seat."""
        self._check_zone(zone)
        if zone not in self._seat_zones:
            raise ValueError(f"{zone} is not a seat zone: cards are turned in place there (reveal)")
        if len(front) != 2 or len(back) != 2:
            raise ValueError("a seat is shown down as two pairs: two front cards and two back cards")
        wanted = [str(parse_card(c)) for c in (*back, *front)]
        with self._lock:
            lying = {c.card: c for c in self._cards[zone]}
            if sorted(lying) != sorted(wanted) or len(lying) != len(self._cards[zone]):
                raise ValueError(f"{zone} holds {sorted(lying)}, not the shown-down {sorted(wanted)}")
            group_turn = self._seat_plans.get(zone, (None, 0.0))[1]
            laid = []
            for name, (dx, dy, ang) in zip(wanted, shown_poses(self._rng), strict=True):
                c = lying[name]
                laid.append(replace(c, face_up=True, dx_mm=dx, dy_mm=dy, angle_deg=ang, seat_turn=group_turn,
                                    turn=self._rng.uniform(-1.0, 1.0)))
            self._cards[zone] = laid

    def reveal(self, zone: str) -> None:
        """The dealer turns that zone's cards face up (in place)."""
        self._check_zone(zone)
        with self._lock:
            self._cards[zone] = [replace(c, face_up=True) for c in self._cards[zone]]

    def turn_card(self, zone: str, index: int, face_up: bool = True) -> None:
        """Turn one card of a zone (a reveal caught half-way)."""
        self._check_zone(zone)
        with self._lock:
            cards = self._cards[zone]
            cards[index] = replace(cards[index], face_up=face_up)

    def clear(self, zone: str) -> None:
        self._check_zone(zone)
        with self._lock:
            self._cards[zone] = []
            self._seat_plans.pop(zone, None)
            if self._cut_zone == zone:
                self._cut_visible = False

    def clear_all(self) -> None:
        with self._lock:
            for z in self._cards:
                self._cards[z] = []
            self._seat_plans.clear()
            self._cut_visible = False
            self._hand_zone = None
            self._dice = ()

    # ---- the dice tray (the zone of kind dice, at a table that has one)
    def throw_dice(self, faces: Sequence[int]) -> None:
        """Dice with these faces up land in the tray, each somewhere new."""
        if self.tray_zone is None:
            raise ValueError(f"no dice tray on this table (no zone of kind {DICE!r} among "
                             f"{', '.join(self._zones) or 'no zones'})")
        if any(isinstance(f, bool) or not isinstance(f, int) or not 1 <= f <= 6 for f in faces):
            raise ValueError(f"a die shows 1 to 6, not {list(faces)!r}")
        with self._lock:
            self._dice = tuple(place_dice(self._rng, list(faces), self.throws, self.tray))

    def clear_dice(self) -> None:
        """The dealer takes the dice out of the tray."""
        with self._lock:
            self._dice = ()

    @property
    def dice(self) -> list[int]:
        """The faces up in the tray, left to right."""
        with self._lock:
            return [d.face for d in sorted(self._dice, key=lambda d: (d.x_mm, d.y_mm))]

    def cut_card(self, visible: bool, zone: str | None = None) -> None:
        """Show the black cut card in `zone`, or in view outside every zone (zone None, e.g.
        next to the shoe), or take it away."""
        if zone is not None:
            self._check_zone(zone)
        with self._lock:
            self._cut_visible = bool(visible)
            self._cut_zone = zone if visible else None
            self._cut_turn = self._rng.uniform(-1.0, 1.0)

    def hand_over(self, zone: str | None) -> None:
        """The dealer's hand over `zone` (None: the hand is out of the picture)."""
        if zone is not None:
            self._check_zone(zone)
        with self._lock:
            self._hand_zone = zone
            self._hand_seed = self._rng.randrange(1 << 30)

    def state(self) -> SceneState:
        with self._lock:
            return SceneState(
                zones={z: tuple(cs) for z, cs in self._cards.items()},
                cut_zone=self._cut_zone,
                cut_visible=self._cut_visible,
                cut_turn=self._cut_turn,
                hand_zone=self._hand_zone,
                hand_seed=self._hand_seed,
                dice=self._dice,
            )

    def snapshot(self) -> dict[str, list]:
        """What the camera should report: zone → cards (`??` face down, the card face up,
        `CUT` for the cut card), for every zone. The dealer's hand hides nothing here: the
        recogniser is expected to hold a zone's last state while the hand is over it. The
        tray's zone holds the faces of the dice in it, left to right."""
        st = self.state()
        tray = self.tray_zone
        out: dict[str, list] = {}
        for z, cards in st.zones.items():
            if z == tray:
                out[z] = [d.face for d in sorted(st.dice, key=lambda d: (d.x_mm, d.y_mm))]
                continue
            items = [c.card if c.face_up and c.misprint is None else (UNREADABLE if c.face_up else FACE_DOWN) for c in cards]
            if st.cut_visible and st.cut_zone == z:
                items.append(CUT)
            out[z] = items
        return out

    @property
    def cut_card_visible(self) -> bool:
        with self._lock:
            return self._cut_visible
