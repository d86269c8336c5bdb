"""The synthetic overhead camera: renders a `TableScene` on a layout, as our studio camera
would see it, with the imperfections of a real table given as data (`Perturbations`).

It stands in for the camera device only; everything downstream (the recogniser, pyzbar,
OpenCV) works on its pixels exactly as on a real camera's.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields, replace

import cv2
import numpy as np

from firmware_bridge.camera.decks import DeckStyle, style_from
from firmware_bridge.camera.dice_render import DiceLook, Tray, draw_dice
from firmware_bridge.camera.faces import CardArtist
from firmware_bridge.camera.layout import Layout
from firmware_bridge.camera.scene import PlacedCard, SceneState, TableScene

Frame = np.ndarray


#: how much further than the scene's steps a dealer spreads a hand (see card_pose)
HAND_CLEAR_MM = 3.0


@dataclass(frozen=True)
class Perturbations:
    """How far the picture is from a perfect one. All zero/one = a clean studio frame."""

    noise_sigma: float = 2.0  # sensor noise, grey levels (1 sigma)
    blur_sigma: float = 0.0  # defocus / slight motion, pixels
    card_rotation_deg: float = 10.0  # largest turn of a card in its zone (spec: ±20)
    camera_roll_deg: float = 0.0  # the camera turned since the zones were calibrated
    perspective: float = 0.0  # keystone: corner shift as a fraction of the frame size
    glare: float = 0.0  # peak grey levels added by a reflected light
    brightness: float = 1.0  # overall light (dim < 1)
    warmth: float = 0.0  # 0 neutral daylight .. 1 tungsten-warm
    occlusion: float = 0.0  # chance per frame that the dealer's fingers cover part of a zone
    jpeg_quality: int = 0  # 0 = uncompressed; else the stream's JPEG quality
    drop_rate: float = 0.0  # chance a frame never arrives

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Perturbations:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown perturbation(s) {sorted(unknown)}; known: {sorted(known)}")
        return cls(**data)  # type: ignore[arg-type]

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


# Named sets for the accuracy suite and the demo. Strengths are the worst we accept at a
# studio table (docs/camera.md); "combined" stacks moderate amounts of everything.
PRESETS: dict[str, Perturbations] = {
    "clean": Perturbations(noise_sigma=0.0),
    "noise": Perturbations(noise_sigma=8.0),
    "blur": Perturbations(blur_sigma=1.0),
    "rotation": Perturbations(card_rotation_deg=20.0, camera_roll_deg=0.7),
    "perspective": Perturbations(perspective=0.010),
    "glare": Perturbations(glare=80.0),
    "dim": Perturbations(brightness=0.45, noise_sigma=3.0),
    "warm": Perturbations(warmth=0.8),
    "occlusion": Perturbations(occlusion=0.5),
    "jpeg": Perturbations(jpeg_quality=60),
    "dropped": Perturbations(drop_rate=0.25),
    "combined": Perturbations(
        noise_sigma=4.0, blur_sigma=0.6, card_rotation_deg=15.0, camera_roll_deg=0.3,
        perspective=0.004, glare=40.0, brightness=0.75, warmth=0.4, occlusion=0.2,
        jpeg_quality=80, drop_rate=0.1,
    ),
}


# Beyond what a studio table should ever show (not in the default accuracy run): used to
# check that when pictures get too poor, cards become XX, never another card.
STRESS_PRESETS: dict[str, Perturbations] = {
    "stress": Perturbations(
        noise_sigma=10.0, blur_sigma=1.8, card_rotation_deg=20.0, camera_roll_deg=0.5,
        perspective=0.006, glare=110.0, brightness=0.4, warmth=0.6, jpeg_quality=35,
    ),
}


def perturbations_from(spec: str | dict | Perturbations | None) -> Perturbations:
    if spec is None:
        return Perturbations()
    if isinstance(spec, Perturbations):
        return spec
    if isinstance(spec, str):
        known = {**PRESETS, **STRESS_PRESETS}
        if spec not in known:
            raise ValueError(f"no perturbation preset {spec!r}; presets: {', '.join(known)}")
        return known[spec]
    if isinstance(spec, dict):
        base = perturbations_from(str(spec["preset"])) if "preset" in spec else Perturbations()
        rest = {k: v for k, v in spec.items() if k != "preset"}
        return replace(base, **Perturbations.from_dict({**base.as_dict(), **rest}).as_dict())
    raise TypeError(f"perturbations must be a preset name, a dict or Perturbations, not {type(spec).__name__}")


# A seat's group of four cards fills most of its zone: it turns by a quarter of the allowed
# card rotation as a whole, each card by a tenth more on its own.
SEAT_GROUP_TURN = 0.25
SEAT_CARD_TURN = 0.1

SKIN_TONES = ((118, 158, 212), (96, 136, 190), (80, 115, 165), (105, 150, 205))
FELT_LINE = 34  # markings are the felt printed a little lighter


def make_artist(style: DeckStyle, mm_per_px: float):
    """The artist that prints `style`'s deck (classic: faces.CardArtist; press: press_art)."""
    if style.art == "classic":
        return CardArtist(mm_per_px, qr_margin_mm=style.qr_margin_mm,
                          back_design=None if style.name == "studio" else style.back)
    if style.art == "press":
        from firmware_bridge.camera.press_art import PressArtist

        return PressArtist(mm_per_px, qr_margin_mm=style.qr_margin_mm, back_design=style.back,
                           skew_deg=style.qr_skew_deg)
    raise ValueError(f"no card art {style.art!r} (classic, press)")


class TableRenderer:
    """Draws frames of a scene. Static parts (felt, markings) are drawn once."""

    def __init__(self, layout: Layout, seed: int = 0, style: str | DeckStyle | None = None, *,
                 tray: Tray | None = None, dice_look: DiceLook | None = None) -> None:
        self.layout = layout
        self.tray = tray or Tray()
        self.dice_look = dice_look or DiceLook()
        self.style = style_from(style)
        self.felt_bgr = self.style.felt_bgr or layout.felt_bgr
        self.artist = make_artist(self.style, layout.mm_per_px)
        self._rng = np.random.default_rng(seed)
        self._background = self._draw_background()
        self._noise: np.ndarray | None = None
        self._glare_patch = self._make_glare_patch()

    def _draw_background(self) -> Frame:
        lay = self.layout
        img = np.empty((lay.height, lay.width, 3), np.uint8)
        img[:] = self.felt_bgr
        # Felt has a slight weave: low, smooth variation.
        tex = self._rng.normal(0.0, 3.0, (lay.height // 8 + 1, lay.width // 8 + 1)).astype(np.float32)
        tex = cv2.resize(cv2.GaussianBlur(tex, (0, 0), 1.5), (lay.width, lay.height))
        img = cv2.add(img.astype(np.int16), np.repeat(tex[:, :, None], 3, axis=2).astype(np.int16))
        img = np.clip(img, 0, 255).astype(np.uint8)
        line = tuple(min(255, c + FELT_LINE) for c in self.felt_bgr)
        thick = max(1, round(1.0 / lay.mm_per_px))
        for name, zone in lay.zones.items():
            pts = np.asarray(zone.polygon, np.float32).round().astype(np.int32)
            cv2.polylines(img, [pts], True, line, thick, cv2.LINE_AA)
            x0, _, _, y1 = zone.bbox
            scale = 1.0 / lay.mm_per_px / 6
            cv2.putText(img, name, (x0 + int(8 / lay.mm_per_px * 0.3), y1 - int(6 / lay.mm_per_px * 0.3)),
                        cv2.FONT_HERSHEY_SIMPLEX, scale, line, max(1, thick), cv2.LINE_AA)
        if lay.tray_zone is not None:
            self._draw_tray(img, lay.tray_zone)
        return img

    def _draw_tray(self, img: Frame, zone: str) -> None:
        """The dice tray, centred in its zone (the layout's zone of kind dice): its rim and,
        inside, its pad."""
        cx, cy = self.layout.zones[zone].centre
        k = 1.0 / self.layout.mm_per_px
        tray = self.tray
        for w_mm, h_mm, bgr in ((tray.width_mm, tray.height_mm, tray.rim_bgr),
                                (tray.width_mm - 2 * tray.rim_mm, tray.height_mm - 2 * tray.rim_mm, tray.pad_bgr)):
            cv2.rectangle(img, (round(cx - w_mm * k / 2), round(cy - h_mm * k / 2)),
                          (round(cx + w_mm * k / 2), round(cy + h_mm * k / 2)), bgr, -1, cv2.LINE_AA)

    def _draw_dice(self, img: Frame, dice: tuple, zone: str) -> None:
        x0, y0, x1, y1 = self.layout.zones[zone].bbox
        x0, y0 = max(0, x0), max(0, y0)
        x1, y1 = min(self.layout.width, x1), min(self.layout.height, y1)
        cx, cy = self.layout.zones[zone].centre
        img[y0:y1, x0:x1] = draw_dice(img[y0:y1, x0:x1], dice, self.dice_look, self.layout.mm_per_px,
                                      (cx - x0, cy - y0))

    def _make_glare_patch(self) -> np.ndarray:
        r = int(min(self.layout.width, self.layout.height) * 0.22)
        yy, xx = np.mgrid[-r:r, -r:r].astype(np.float32)
        return np.exp(-(xx**2 + yy**2) / (2 * (r / 2.5) ** 2))

    # ---- card placement ------------------------------------------------------------
    def background(self) -> Frame:
        """The empty table (felt and markings), a copy to draw on."""
        return self._background.copy()

    def draw_card(self, img: Frame, tile: np.ndarray, cx: float, cy: float, angle_deg: float) -> None:
        """Lay a card image (`artist.face(...)`, `artist.back()`) at a chosen pose (in place)."""
        self._paste(img, tile, cx, cy, angle_deg)

    def _paste(self, img: Frame, tile: np.ndarray, cx: float, cy: float, angle_deg: float) -> None:
        """Put `tile` centred at (cx, cy), turned by angle_deg, onto img (in place)."""
        th, tw = tile.shape[:2]
        half = 0.5 * math.hypot(tw, th) + 2
        x0, y0 = max(0, int(cx - half)), max(0, int(cy - half))
        x1, y1 = min(img.shape[1], int(cx + half) + 1), min(img.shape[0], int(cy + half) + 1)
        if x1 <= x0 or y1 <= y0:
            return
        m = cv2.getRotationMatrix2D((tw / 2, th / 2), angle_deg, 1.0)
        m[0, 2] += cx - tw / 2 - x0
        m[1, 2] += cy - th / 2 - y0
        roi = img[y0:y1, x0:x1]
        cv2.warpAffine(tile, m, (x1 - x0, y1 - y0), dst=roi, flags=cv2.INTER_LINEAR,
                       borderMode=cv2.BORDER_TRANSPARENT)

    def card_pose(self, zone: str, card: PlacedCard, p: Perturbations) -> tuple[float, float, float]:
        cx, cy = self.layout.zones[zone].centre
        k = 1.0 / self.layout.mm_per_px
        if card.seat_turn is not None:
            # a seat's cards are laid as a group (seat_poses); the group lies a little turned
            # in its zone and each card a degree or two on its own
            group = math.radians(card.seat_turn * SEAT_GROUP_TURN * p.card_rotation_deg)
            c, s = math.cos(group), math.sin(group)
            gx, gy = c * card.dx_mm + s * card.dy_mm, -s * card.dx_mm + c * card.dy_mm
            angle = card.angle_deg + math.degrees(group) + card.turn * SEAT_CARD_TURN * p.card_rotation_deg
            return cx + gx * k, cy + gy * k, self._flip(card, angle)
        angle = card.turn * p.card_rotation_deg
        # A dealer spreads a hand so the first card's corner code shows whole, its quiet zone
        # too (the one-code rule names a card only from a code in full view): a deck whose
        # codes sit further in from the edge is spread further (the scene's steps suit 2 mm,
        # plus HAND_CLEAR_MM so a card turned by the rotation preset clears the quiet zone).
        spread = max(0.0, self.style.qr_margin_mm - 2.0) * 0.6 + HAND_CLEAR_MM
        dx, dy = card.dx_mm + math.copysign(spread * 0.3, card.dx_mm), card.dy_mm + math.copysign(spread, card.dy_mm)
        return cx + dx * k, cy + dy * k, self._flip(card, angle)

    def _flip(self, card: PlacedCard, angle: float) -> float:
        # a deck dealt without care for its top and bottom: some cards lie the other way round
        if self.style.upside_down and int(abs(card.dx_mm) * 1000) % 2:
            angle += 180.0
        return angle

    def _cut_spot(self) -> tuple[float, float]:
        """Somewhere in view but in no zone (next to the shoe) for a loose cut card."""
        lay = self.layout
        cw, ch = lay.card_px
        boxes = [z.bbox for z in lay.zones.values()]
        for fy in np.linspace(0.9, 0.1, 9):
            for fx in np.linspace(0.08, 0.92, 12):
                x, y = fx * lay.width, fy * lay.height
                r = 0.6 * math.hypot(cw, ch)
                if all(x + r < b[0] or x - r > b[2] or y + r < b[1] or y - r > b[3] for b in boxes):
                    if r < x < lay.width - r and r < y < lay.height - r:
                        return x, y
        return lay.width * 0.1, lay.height * 0.85

    def _hand(self, img: Frame, cx: float, cy: float, rng: random.Random, *, fingers_only: bool = False) -> None:
        k = 1.0 / self.layout.mm_per_px
        tone = SKIN_TONES[rng.randrange(len(SKIN_TONES))]
        shade = tuple(int(c * 0.85) for c in tone)
        tilt = rng.uniform(-0.35, 0.35)
        ux, uy = math.sin(tilt), -math.cos(tilt)  # towards the players
        if not fingers_only:
            # Forearm from the dealer's side (the bottom edge) to the wrist.
            wx, wy = cx - ux * 55 * k, cy - uy * 55 * k
            ex, ey = wx - ux * 600 * k, wy - uy * 600 * k
            cv2.line(img, (int(ex), int(ey)), (int(wx), int(wy)), shade, int(62 * k), cv2.LINE_AA)
            cv2.ellipse(img, (int(cx), int(cy)), (int(42 * k), int(55 * k)), math.degrees(tilt), 0, 360, tone, -1, cv2.LINE_AA)
            base_x, base_y, length = cx + ux * 40 * k, cy + uy * 40 * k, 70 * k
        else:
            base_x, base_y, length = cx, cy, 75 * k
        for i in range(4):
            off = (i - 1.5) * 19 * k
            fx0 = base_x - uy * off
            fy0 = base_y + ux * off
            ln = length * (0.8 + 0.2 * (i in (1, 2)))
            fx1, fy1 = fx0 + ux * ln, fy0 + uy * ln
            if fingers_only:
                # fingers reach in from the dealer's side: draw them from below the point
                fx0, fy0 = fx0 - ux * ln, fy0 - uy * ln
                fx1, fy1 = fx1 - ux * ln * 0.2, fy1 - uy * ln * 0.2
            cv2.line(img, (int(fx0), int(fy0)), (int(fx1), int(fy1)), tone, int(17 * k), cv2.LINE_AA)

    # ---- the frame -----------------------------------------------------------------
    def render(self, state: SceneState, p: Perturbations, rng: random.Random) -> Frame:
        lay = self.layout
        img = self._background.copy()
        for zone, cards in state.zones.items():
            if zone not in lay.zones:
                continue
            for c in cards:
                tile = self.artist.face(c.card, c.code, misprint=c.misprint) if c.face_up else self.artist.back()
                cx, cy, ang = self.card_pose(zone, c, p)
                self._paste(img, tile, cx, cy, ang)
        if state.cut_visible:
            if state.cut_zone is not None and state.cut_zone in lay.zones:
                cx, cy = lay.zones[state.cut_zone].centre
            else:
                cx, cy = self._cut_spot()
            self._paste(img, self.artist.cut(), cx, cy, state.cut_turn * p.card_rotation_deg)
        if state.dice and lay.tray_zone is not None:
            self._draw_dice(img, state.dice, lay.tray_zone)
        if state.hand_zone is not None and state.hand_zone in lay.zones:
            hr = random.Random(state.hand_seed)
            zx, zy = lay.zones[state.hand_zone].centre
            self._hand(img, zx + hr.uniform(-30, 30), zy + hr.uniform(-30, 30), hr)
        if p.occlusion > 0 and rng.random() < p.occlusion:
            zone = lay.zones[rng.choice(list(lay.zones))]
            x0, y0, x1, y1 = zone.bbox
            self._hand(img, rng.uniform(x0 + 40, x1 - 40), y1 - rng.uniform(0.05, 0.3) * (y1 - y0), rng, fingers_only=True)
        return self._camera_effects(img, p, rng)

    def new_view(self, rng: random.Random) -> None:
        """Draw where the lights reflect and how far the camera has moved since it was
        calibrated. Both hold still from frame to frame, as at a real table, until this is
        called again (the accuracy suite calls it for every independent frame)."""
        self._glare_xy = (rng.uniform(0, self.layout.width), rng.uniform(0, self.layout.height))
        self._roll_unit = rng.uniform(-1, 1)
        self._keystone_unit = [(rng.uniform(-1, 1), rng.uniform(-1, 1)) for _ in range(4)]

    def _camera_effects(self, img: Frame, p: Perturbations, rng: random.Random) -> Frame:
        lay = self.layout
        if not hasattr(self, "_glare_xy"):
            self.new_view(rng)
        if p.glare > 0:
            patch = self._glare_patch
            r = patch.shape[0] // 2
            gx, gy = int(self._glare_xy[0]), int(self._glare_xy[1])
            x0, y0, x1, y1 = max(0, gx - r), max(0, gy - r), min(lay.width, gx + r), min(lay.height, gy + r)
            add = (patch[y0 - gy + r : y1 - gy + r, x0 - gx + r : x1 - gx + r] * p.glare).astype(np.uint8)
            roi = img[y0:y1, x0:x1]
            cv2.add(roi, cv2.merge([add, add, add]), dst=roi)
        if p.brightness != 1.0 or p.warmth:
            w = p.warmth
            gains = np.diag([p.brightness * (1 - 0.30 * w), p.brightness * (1 - 0.06 * w), p.brightness * (1 + 0.12 * w)])
            img = cv2.transform(img, gains.astype(np.float32))
        if p.camera_roll_deg or p.perspective:
            w, h = lay.width, lay.height
            src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
            jit = np.float32([[u * p.perspective * w, v * p.perspective * h] for u, v in self._keystone_unit])
            roll = np.deg2rad(self._roll_unit * p.camera_roll_deg)
            c, s = math.cos(roll), math.sin(roll)
            centred = src - [w / 2, h / 2]
            rolled = np.float32([[c * x - s * y + w / 2, s * x + c * y + h / 2] for x, y in centred])
            m = cv2.getPerspectiveTransform(src, rolled + jit)
            img = cv2.warpPerspective(img, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        if p.blur_sigma > 0:
            img = cv2.GaussianBlur(img, (0, 0), p.blur_sigma)
        if p.noise_sigma > 0:
            self._add_noise(img, p.noise_sigma, rng)
        if p.jpeg_quality:
            ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(p.jpeg_quality)])
            if ok:
                img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        return img

    def _add_noise(self, img: Frame, sigma: float, rng: random.Random) -> None:
        # Gaussian noise for 6 M samples per frame is slow to draw; draw one field 64 px
        # larger than the frame once and take a random window of it each frame.
        h, w = img.shape[:2]
        if self._noise is None or self._noise[2] != sigma:
            field = self._rng.normal(0.0, sigma, (h + 64, w + 64, 3))
            pos = np.clip(field, 0, 255).astype(np.uint8)
            neg = np.clip(-field, 0, 255).astype(np.uint8)
            self._noise = (pos, neg, sigma)  # type: ignore[assignment]
        pos, neg, _ = self._noise  # type: ignore[misc]
        ox, oy = rng.randrange(64), rng.randrange(64)
        cv2.add(img, pos[oy : oy + h, ox : ox + w], dst=img)
        cv2.subtract(img, neg[oy : oy + h, ox : ox + w], dst=img)


class SyntheticCamera:
    """A frame source that renders the current scene. `read()` returns `(t, frame)`, or
    None for a frame the (simulated) link dropped. `fps` paces reads in real time (the
    live demo); without it frames come as fast as they can be drawn (tests, benchmarks)."""

    def __init__(
        self,
        scene: TableScene,
        layout: Layout,
        perturbations: str | dict | Perturbations | None = None,
        seed: int = 0,
        *,
        fps: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        style: str | DeckStyle | None = None,
    ) -> None:
        if not isinstance(layout, Layout):
            raise TypeError(f"a synthetic camera films a table's layout, not {layout!r}")
        # a scene made without its zones is laid out as the layout it is filmed through says
        scene.lay_out(layout)
        self.scene = scene
        self.layout = layout
        self.perturbations = perturbations_from(perturbations)
        self.renderer = TableRenderer(self.layout, seed=seed, style=style)
        self._rng = random.Random(seed)
        self._fps = fps
        self._clock = clock
        self._next_at: float | None = None
        self._closed = False

    def read(self) -> tuple[float, Frame] | None:
        if self._closed:
            return None
        if self._fps:
            now = time.monotonic()
            if self._next_at is not None and now < self._next_at:
                time.sleep(self._next_at - now)
            self._next_at = max(now, self._next_at or now) + 1.0 / self._fps
        t = self._clock()
        frame = self.renderer.render(self.scene.state(), self.perturbations, self._rng)
        if self.perturbations.drop_rate and self._rng.random() < self.perturbations.drop_rate:
            return None
        return t, frame

    def new_view(self) -> None:
        """Move the light reflection and the camera's calibration error (see TableRenderer)."""
        self.renderer.new_view(self._rng)

    def close(self) -> None:
        self._closed = True
