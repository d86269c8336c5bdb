"""The accuracy suite: thousands of synthetic frames with known truth, per perturbation.

Each frame shows a fresh random table from a scene maker: a game's own (its hands, its burn
card, its seats, in its package's camera accuracy suite), or `random_table_of(layout)`'s for
any layout (every card zone empty, one or two cards, face down, face up or half revealed;
sometimes the cut card in a zone or beside the shoe; now and then a misprinted card whose two
symbols disagree). The recogniser reads it as a still, with no history to lean on, and every
zone is scored:

* `correct`: exactly the truth (as a multiset: order in a zone means nothing);
* `xx`: right count and sides, but a face-up card reported `XX` (unreadable, not guessed);
* `wrong_identity`: a card named that is not there. Must be 0;
* `miscount`: wrong number of cards, wrong side up, or a cut card missed or invented;
* `held`: the dealer's fingers covered the zone, so it was not read (the live recogniser
  keeps the zone's last state); held zones are not scored.

`station camera accuracy` runs it; the test suite runs a smaller sample.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from firmware_bridge.camera.calibration import calibrate
from firmware_bridge.camera.config import CameraConfig
from firmware_bridge.camera.decks import DeckStyle
from firmware_bridge.camera.layout import CARDS, Layout
from firmware_bridge.camera.recogniser import Recogniser
from firmware_bridge.camera.scene import CUT, FACE_DOWN, UNREADABLE, TableScene
from firmware_bridge.camera.synthetic import PRESETS, STRESS_PRESETS, SyntheticCamera
from firmware_bridge.cards import ALL_CARDS


@dataclass
class PresetScore:
    preset: str
    style: str = "studio"
    frames: int = 0
    counts: Counter = field(default_factory=Counter)
    cut_flag_wrong: int = 0
    seconds: float = 0.0
    examples: list[str] = field(default_factory=list)

    @property
    def scored(self) -> int:
        return sum(v for k, v in self.counts.items() if k != "held")

    @property
    def correct_ratio(self) -> float:
        return self.counts["correct"] / self.scored if self.scored else 1.0

    def as_dict(self) -> dict[str, object]:
        return {
            "style": self.style,
            "preset": self.preset,
            "frames": self.frames,
            "zone_states": self.scored,
            "correct": self.counts["correct"],
            "xx": self.counts["xx"],
            "wrong_identity": self.counts["wrong_identity"],
            "miscount": self.counts["miscount"],
            "held": self.counts["held"],
            "cut_flag_wrong": self.cut_flag_wrong,
            "correct_pct": round(100 * self.correct_ratio, 2),
            "ms_per_frame": round(1000 * self.seconds / max(1, self.frames), 1),
        }


def deal_hand(rng: random.Random, scene: TableScene, zone: str) -> None:
    """None, one or two cards in `zone`, face down, face up or half revealed; now and then a
    serial code, and a misprint on a face-up top card."""
    n = rng.choice((0, 1, 2, 2, 2, 2))
    mode = rng.choice(("down", "down", "up", "up", "half"))
    for j in range(n):
        up = mode == "up" or (mode == "half" and j == 0)
        card = str(rng.choice(ALL_CARDS))
        code = f"{rng.randrange(1, 9)}-{rng.randrange(10000):04d}" if rng.random() < 0.3 else None
        misprint = None
        # A misprint can be seen only when both symbols are: on the top card.
        if up and j == n - 1 and rng.random() < 0.03:
            misprint = str(rng.choice([c for c in ALL_CARDS if str(c) != card]))
        scene.deal(zone, card, face_up=up, code=code, misprint=misprint)


def lay_cut_card(rng: random.Random, scene: TableScene) -> None:
    """The cut card, when out, lies beside the shoe or alone in a free zone (the dealer never
    lays it on a hand, where it would hide the cards)."""
    r = rng.random()
    empty = [z for z, cards in scene.snapshot().items() if not cards]
    if r < 0.08 and empty:
        scene.cut_card(True, rng.choice(empty))
    elif r < 0.2:
        scene.cut_card(True, None)


def random_table_of(layout: Layout) -> SceneMaker:
    """Random tables of any layout: a hand (`deal_hand`) in every zone of cards, the cut card
    now and then (`lay_cut_card`)."""
    zones = layout.zone_names
    cards = [z for z in zones if layout.kind_of(z) == CARDS]

    def make(rng: random.Random, seed: int) -> TableScene:
        scene = TableScene(zones, seed=seed, zone_kinds=layout.zone_kinds)
        for zone in cards:
            deal_hand(rng, scene, zone)
        lay_cut_card(rng, scene)
        return scene

    return make


def score_zone(truth: list[str], seen: list[str] | None) -> str:
    if seen is None:
        return "held"
    if sorted(truth) == sorted(seen):
        return "correct"
    named_truth = Counter(truth)
    for item, n in Counter(seen).items():
        if item not in (UNREADABLE, FACE_DOWN, CUT) and n > named_truth[item]:
            return "wrong_identity"

    def shape(items: list[str]) -> list[str]:
        return sorted(x if x in (FACE_DOWN, CUT) else "up" for x in items)

    return "xx" if shape(truth) == shape(seen) else "miscount"


def calibration_stills(layout: Layout, style: str | DeckStyle, seed: int = 1) -> tuple[list, list]:
    """What a studio engineer photographs to calibrate a deck: the empty felt, and a still
    with three face-down cards of the deck lying apart (studio light, sensor noise)."""
    felt = SyntheticCamera(TableScene(layout.zone_names), layout, perturbations="noise", style=style, seed=seed).read()
    scene = TableScene(layout.zone_names, seed=seed)
    cards = [z for z in layout.zones if layout.kind_of(z) == CARDS]
    for zone in cards[:: max(1, len(cards) // 3)][:3]:  # three zones apart
        scene.deal(zone, "2C")
    back = SyntheticCamera(scene, layout, perturbations="noise", style=style, seed=seed + 1).read()
    assert felt is not None and back is not None  # the noise preset drops no frames
    return [felt[1]], [back[1]]


def calibrated_recogniser(layout: Layout, style: str | DeckStyle, decoder: str = "auto", seed: int = 1) -> Recogniser:
    """A recogniser calibrated from the style's own stills, as at a table with that deck."""
    felt, back = calibration_stills(layout, style, seed)
    return Recogniser(layout, decoder=decoder,
                      calibration=calibrate(felt, back, layout.mm_per_px, ignore=layout.places_without_cards()))


def run(
    presets: list[str] | None = None,
    frames: int = 250,
    seed: int = 1,
    decoder: str = "auto",
    *,
    layout: Layout,
    styles: list[str] | None = None,
    scene_for: SceneMaker | None = None,
) -> list[PresetScore]:
    """Score every (deck style, perturbation) on the tables of `scene_for` (None:
    `random_table_of(layout)`): each style is calibrated from its own stills first. Without
    `styles`: the studio deck with the layout's own calibration."""
    return run_camera(CameraConfig(layout), scene_for or random_table_of(layout), presets, frames, seed,
                      decoder, styles)


def run_camera(cam: CameraConfig, scene_for: SceneMaker, presets: list[str] | None = None, frames: int = 250,
               seed: int = 1, decoder: str = "auto", styles: list[str] | None = None) -> list[PresetScore]:
    """Score the recogniser of camera `cam`, built as the live camera builds it (each zone
    read by its kind's reader), on tables from `scene_for`, per (deck style, perturbation):
    each style calibrated from its own stills first; without `styles` the studio deck with
    the layout's own calibration."""
    from firmware_bridge.camera.build import build_recogniser

    layout = cam.layout
    results = []
    for style in styles or [None]:
        cal = None
        if style is not None:
            felt, back = calibration_stills(layout, style, seed)
            cal = calibrate(felt, back, layout.mm_per_px, ignore=layout.places_without_cards())
        recogniser = build_recogniser(cam, decoder=decoder, calibration=cal)
        results.extend(run_scenes(recogniser, layout, style, presets, frames, seed, scene_for))
    return results


#: (random numbers, seed) -> a fresh table to render and score
SceneMaker = Callable[[random.Random, int], TableScene]


def run_scenes(recogniser: Recogniser, layout: Layout, style: str | None, presets: list[str] | None,
               frames: int, seed: int, scene_for: SceneMaker) -> list[PresetScore]:
    """Score `recogniser` (its zones read by their kinds' readers) on `frames` tables from
    `scene_for` per perturbation preset."""
    results = []
    for preset in presets or list(PRESETS):
        known = sorted({**PRESETS, **STRESS_PRESETS})
        if preset not in known:
            raise ValueError(f"no perturbation preset {preset!r}; presets: {', '.join(known)}")
        score = PresetScore(preset, style or "studio")
        base = seed * 1_000_003 + known.index(preset) * 10_007
        # one camera per preset: its felt, card art and noise field are drawn once
        camera = SyntheticCamera(TableScene(layout.zone_names), layout, perturbations=preset, seed=base, style=style)
        for i in range(frames):
            rng = random.Random(base + i)
            scene = scene_for(rng, base + i)
            cut = score_frame(camera, scene, recogniser, score, i)
            if cut != scene.cut_card_visible:
                score.cut_flag_wrong += 1
                if len(score.examples) < 20:
                    score.examples.append(f"frame {i}: cut card in view {scene.cut_card_visible}, seen {cut}")
        results.append(score)
    return results


def score_frame(camera: SyntheticCamera, scene: TableScene, recogniser: Recogniser,
                score: PresetScore, frame_no: int) -> bool:
    """Film `scene`, read the frame, score each zone into `score`; whether the recogniser
    saw the cut card."""
    scene.lay_out(camera.layout)  # kinds its maker left unsaid: the layout's
    camera.scene = scene
    camera.new_view()
    got = None
    while got is None:  # a dropped frame never reaches the recogniser
        got = camera.read()
    t0 = time.perf_counter()
    zones, cut = recogniser.read_still(got[1])
    score.seconds += time.perf_counter() - t0
    truth = scene.snapshot()
    score.frames += 1
    for zone, seen in zones.items():
        verdict = score_zone(truth[zone], seen)
        score.counts[verdict] += 1
        if verdict not in ("correct", "held") and len(score.examples) < 20:
            score.examples.append(f"frame {frame_no} {zone}: truth {sorted(truth[zone])} "
                                  f"seen {seen} ({verdict})")
    return bool(cut)


def by_style(results: list[PresetScore]) -> dict[str, dict[str, object]]:
    """Totals per deck style (the bar holds for every style on its own)."""
    out: dict[str, list[PresetScore]] = {}
    for r in results:
        out.setdefault(r.style, []).append(r)
    return {style: totals(rs) for style, rs in out.items()}


def totals(results: list[PresetScore]) -> dict[str, object]:
    c: Counter = Counter()
    for r in results:
        c.update(r.counts)
    scored = sum(v for k, v in c.items() if k != "held")
    return {
        "frames": sum(r.frames for r in results),
        "zone_states": scored,
        "correct": c["correct"],
        "xx": c["xx"],
        "wrong_identity": c["wrong_identity"],
        "miscount": c["miscount"],
        "held": c["held"],
        "cut_flag_wrong": sum(r.cut_flag_wrong for r in results),
        "correct_pct": round(100 * c["correct"] / scored, 3) if scored else 100.0,
    }
