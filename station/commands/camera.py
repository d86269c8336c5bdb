"""`station camera`: the overhead camera from the command line.

    station camera snapshot --config config/camera_table7.toml --out table.png
    station camera read --config config/camera_table7.toml frame1.png frame2.jpg
    station camera render --out frame.png --seed 4 [--perturbations dim]
    station camera calibrate --config config/camera_table7.toml --felt felt.png --back back.png
    station camera accuracy --game GAME [--frames 250] [--presets clean,dim] [--styles all] [--dice-sets studio]

`snapshot` is for calibration at a real table: it saves the current frame with the zones
and the recogniser's view drawn on it, and prints the felt it measured, the calibrated back
and what each zone took to read. `read` prints one JSON line per still image so a frame
grabbed at a table can be checked by hand. `render` draws a random synthetic table and
prints its truth. `calibrate` learns the felt and the deck's back from stills and writes
them into the camera config. `accuracy` runs the accuracy suite (docs/camera.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from station.core.settings import DEFAULT_GAME


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="camera_command", metavar="ACTION", required=True)
    snap = sub.add_parser("snapshot", help="save a PNG of the current frame with zones and the recogniser's view")
    snap.add_argument("--config", help="camera config TOML (default: the --game's studio layout, synthetic camera)")
    snap.add_argument("--game", default=DEFAULT_GAME, help="without --config: the game whose studio layout "
                                                           "is filmed (default %(default)s)")
    snap.add_argument("--source", help="override the config's frame source (device, URL, file, folder, synthetic)")
    snap.add_argument("--out", default="camera_snapshot.png", help="PNG to write (default %(default)s)")
    snap.add_argument("--frames", type=int, default=6, help="frames to watch before saving, so zones settle (default %(default)s)")
    snap.add_argument("--timeout", type=float, default=10.0, help="give up after this many seconds without frames")
    snap.add_argument("--raw", action="store_true",
                      help="save the frame as the camera gave it, nothing drawn (a still for `calibrate`)")
    rd = sub.add_parser(
        "read", help="read still images: one JSON line per image",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Read each IMAGE on its own (no history) and print one JSON line per image.",
        epilog=READ_OUTPUT_HELP + "\n\n" + _readers_help())
    rd.add_argument("--config", help="camera config TOML (default: the --game's studio layout)")
    rd.add_argument("--game", default=DEFAULT_GAME, help="without --config: the game whose studio layout "
                                                         "is read (default %(default)s)")
    rd.add_argument("--decoder", choices=("auto", "zbar", "zxing"), help="override the config's QR decoder")
    rd.add_argument("images", nargs="+", metavar="IMAGE")
    ren = sub.add_parser("render", help="draw a random synthetic table to a PNG and print its truth")
    ren.add_argument("--config", help="camera config TOML (default: the --game's studio layout)")
    ren.add_argument("--game", default=DEFAULT_GAME, help="without --config: the game whose studio layout "
                                                          "is drawn (default %(default)s)")
    ren.add_argument("--out", required=True)
    ren.add_argument("--seed", type=int, default=1)
    ren.add_argument("--perturbations", default="clean", help="a preset name (see `accuracy --help`)")
    ren.add_argument("--style", default="studio", help="deck style: " + ", ".join(_style_names()))
    ren.add_argument("--empty", action="store_true", help="draw the empty felt (a calibration still)")
    ren.add_argument("--backs", type=int, default=0, metavar="N",
                     help="draw N face-down cards lying apart and nothing else (a calibration still)")
    cal = sub.add_parser(
        "calibrate", help="learn the felt, the deck's back and the dice's size from stills; write them into the camera config",
        description="Learn the felt's colour from stills of the empty felt and the deck's back (colours, "
                    "pattern, texture) from stills with face-down cards lying apart, and write them as "
                    "[calibration.felt] and [calibration.back] into the camera config (docs/camera.md, "
                    "'Calibrating a new deck'); with --dice, learn a die's size in pixels from stills of the "
                    "dice tray with dice in it and write it as [calibration.dice] (docs/camera.md, 'Dice'). "
                    "--felt and --back go together; --dice may be given alone.")
    cal.add_argument("--config", required=True, help="the camera config TOML to update")
    cal.add_argument("--felt", action="append", metavar="IMAGE", help="a still of the empty felt (repeatable)")
    cal.add_argument("--back", action="append", metavar="IMAGE",
                     help="a still with one or a few face-down cards of the deck set, lying apart (repeatable)")
    cal.add_argument("--dice", action="append", metavar="IMAGE",
                     help="a still of the dice tray with one or two dice, top faces in full view (repeatable)")
    cal.add_argument("--dry-run", action="store_true", help="print what was learned, write nothing")
    acc = sub.add_parser(
        "accuracy", help="run a game's camera accuracy suite on synthetic frames",
        description="Score the recogniser, built as the live camera builds it, on synthetic frames with known "
                    "truth: the game's card zones per deck style and perturbation, its dice tray per dice set and "
                    "dice perturbation (docs/camera.md, 'Accuracy'). Exit 0 when every bar is met.")
    acc.add_argument("--game", default=DEFAULT_GAME,
                     help="the game whose zones are scored (default %(default)s)")
    acc.add_argument("--frames", type=int, default=250, help="frames (dice: trays) per perturbation (default %(default)s)")
    acc.add_argument("--presets", help="comma-separated card perturbation presets (default: all)")
    acc.add_argument("--styles", help="comma-separated deck styles, or 'all' (each calibrated from its own stills; "
                                      "default: the studio deck with the layout's calibration); styles: "
                                      + ", ".join(_style_names()))
    acc.add_argument("--dice-sets", help="comma-separated dice sets (default: all): " + ", ".join(_dice_set_names()))
    acc.add_argument("--dice-presets", help="comma-separated dice perturbation presets (default: all)")
    acc.add_argument("--decoder", default="auto", choices=("auto", "zbar", "zxing"))
    acc.add_argument("--seed", type=int, default=1)
    acc.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    acc.add_argument("--examples", action="store_true", help="also list misread zones and trays")

READ_OUTPUT_HELP = """output, one line per image:
  {"image": "f.png", "zones": {"<zone>": ["7H", "??"], "<zone>": [], "<zone>": null, ...},
   "cut_card": false, "ms": 14.2}

  zones     every zone of the layout, each read by the reader of its kind
            (below). A zone of cards is a list of what lies there:
              a card ("7H"; the printed code of serialized decks is not shown),
              "??" a card face down, "XX" a card face up whose codes cannot be read
              (never a guess), "CUT" the cut card lying in the zone.
            The order within a zone carries no meaning: identities come first
            (sorted), then XX, ??, CUT, so equal contents print equally.
            A dice tray is a list of faces, e.g. [3, 0] (0: a die not
            read with certainty; [] an empty tray).
  null      the zone cannot be read in this picture: the dealer's hand covers it,
            or a card back the calibration does not know lies there (then
            "camera_status" says so: run `station camera calibrate`).
  cut_card  true when the black cut card is anywhere in view, in a zone or
            outside every zone (beside the shoe).
  ms        milliseconds the recogniser took for this image.
  camera_status  only when something is wrong with the calibration: e.g.
            "deck back not calibrated: ..." or "unknown card back in P3: ...".

  camera    with a config naming several cameras (a rig, docs/camera.md "Several
            cameras"): each IMAGE is given as CAMERA=IMAGE and read by that camera's
            recogniser; its line names the camera and holds that camera's zones.

  An image that cannot be read prints {"image": ..., "error": ...}; the exit
  status is then 1 (2 for a bad config)."""


def _readers_help() -> str:
    from firmware_bridge.camera.build import readers_help

    return readers_help()


def _camera_config(path: str | None, game: str | None = None):
    """The camera config at `path`, its zones and their kinds the layout's game's (one camera
    of several, `[layout] one_of_several = true`, holds some of them); without a file, or a
    file without zones, the studio layout `game` declares."""
    from firmware_bridge.camera.config import load_camera_config
    from station.games.camera_zones import game_layout_data, game_zones

    default = game_layout_data(game) if game is not None else None
    return load_camera_config(path, game_zones, default=default)


def _dice_set_names() -> list[str]:
    from firmware_bridge.camera.dice_render import DICE_SETS

    return list(DICE_SETS)


def _style_names() -> list[str]:
    from firmware_bridge.camera.decks import STYLES

    return list(STYLES)


def run(args: argparse.Namespace) -> int:
    from firmware_bridge.camera.layout import LayoutError
    from firmware_bridge.camera.sources import SourceError

    try:
        return {"snapshot": _snapshot, "read": _read, "render": _render, "accuracy": _accuracy,
                "calibrate": _calibrate}[args.camera_command](args)
    except (LayoutError, SourceError, ValueError) as exc:
        print(f"station camera {args.camera_command}: {exc}", file=sys.stderr)
        return 2


def _snapshot(args: argparse.Namespace) -> int:
    import cv2

    from firmware_bridge.camera.build import build_recogniser
    from firmware_bridge.camera.overlay import draw_view
    from firmware_bridge.camera.sources import open_source

    cfg = _camera_config(args.config, args.game)
    spec = args.source if args.source else cfg.source
    source = open_source(spec, layout=cfg.layout)  # type: ignore[arg-type]
    rec = build_recogniser(cfg)
    frame = None
    seen = 0
    deadline = time.monotonic() + args.timeout
    try:
        while seen < max(1, args.frames) and time.monotonic() < deadline:
            got = source.read()
            if got is None:
                if getattr(source, "end", False):
                    break
                time.sleep(0.02)
                continue
            t, frame = got
            rec.process(t, frame)
            seen += 1
    finally:
        source.close()
    if frame is None:
        print(f"station camera snapshot: no frame from {spec!r} within {args.timeout:g} s", file=sys.stderr)
        return 1
    states: dict[str, list[str] | None] = dict(rec.stable)
    if len(states) < len(cfg.layout.zones):
        # too few frames for every zone to settle (a single still): show this frame's reading
        states, _ = rec.read_still(frame)
    out = frame if args.raw else draw_view(frame, cfg.layout, rec, states)
    if not cv2.imwrite(args.out, out):
        print(f"station camera snapshot: cannot write {args.out}", file=sys.stderr)
        return 1
    cal = rec.calibration
    print(json.dumps({
        "snapshot": args.out, "frames": seen, "zones": states, "cut_card": rec.cut_card_visible,
        "felt_measured_bgr": list(rec.felt_measured) if rec.felt_measured else None,
        "felt_calibrated_bgr": list(cal.felt.bgr) if cal.felt is not None else None,
        "back": cal.back.describe() if cal.back is not None else "not calibrated (station camera calibrate)",
        "zone_ms": {z: round(v.ms, 2) for z, v in rec.views.items()},
        "camera_status": rec.status["message"],
    }))
    return 0


def _read(args: argparse.Namespace) -> int:
    import cv2

    from firmware_bridge.camera.build import build_recogniser
    from firmware_bridge.camera.rig import is_rig_file, load_rig
    from station.games.camera_zones import game_zones

    pictures: list[tuple[str | None, str]] = []
    if is_rig_file(args.config):
        # several cameras: each image names the camera it is from, CAMERA=IMAGE
        rig = load_rig(args.config, game_zones)
        recs = {n: build_recogniser(c, decoder=args.decoder) for n, c in rig.cameras.items()}
        for arg in args.images:
            cam_name, sep, path = arg.partition("=")
            if not sep or cam_name not in recs:
                print(f"station camera read: {args.config} names cameras {', '.join(recs)}: give each image "
                      f"as CAMERA=IMAGE (got {arg!r})", file=sys.stderr)
                return 2
            pictures.append((cam_name, path))
    else:
        recs = {None: build_recogniser(_camera_config(args.config, args.game), decoder=args.decoder)}  # type: ignore[dict-item]
        pictures = [(None, p) for p in args.images]
    rc = 0
    for cam_name, name in pictures:
        rec = recs[cam_name]  # type: ignore[index]
        frame = cv2.imread(name, cv2.IMREAD_COLOR)
        if frame is None:
            print(json.dumps({"image": name, "error": "not an image OpenCV can read"}))
            rc = 1
            continue
        try:
            t0 = time.perf_counter()
            zones, cut = rec.read_still(frame)
            ms = (time.perf_counter() - t0) * 1000.0
        except ValueError as exc:
            print(json.dumps({"image": name, "error": str(exc)}))
            rc = 1
            continue
        # A zone the dealer's hand covers is reported as null: nothing can be read there.
        line: dict[str, object] = {"image": name, "zones": zones, "cut_card": cut, "ms": round(ms, 1)}
        if cam_name is not None:
            line["camera"] = cam_name
        if rec.status["message"]:
            line["camera_status"] = rec.status["message"]
        print(json.dumps(line), flush=True)
    return rc


def _render(args: argparse.Namespace) -> int:
    import random

    import cv2

    from firmware_bridge.camera.accuracy import random_table_of
    from firmware_bridge.camera.layout import CARDS
    from firmware_bridge.camera.scene import TableScene
    from firmware_bridge.camera.synthetic import SyntheticCamera

    cfg = _camera_config(args.config, args.game)
    if args.empty or args.backs:
        scene = TableScene(cfg.layout.zone_names, seed=args.seed)
        cards = [z for z in cfg.layout.zone_names if cfg.layout.kind_of(z) == CARDS]
        for zone in cards[: args.backs]:
            scene.deal(zone, "2C")
    else:
        scene = random_table_of(cfg.layout)(random.Random(args.seed), args.seed)
    cam = SyntheticCamera(scene, cfg.layout, perturbations=args.perturbations, seed=args.seed, style=args.style)
    got = None
    while got is None:
        got = cam.read()
    if not cv2.imwrite(args.out, got[1]):
        print(f"station camera render: cannot write {args.out}", file=sys.stderr)
        return 1
    print(json.dumps({"image": args.out, "zones": scene.snapshot(), "cut_card": scene.cut_card_visible}))
    return 0


def _calibrate(args: argparse.Namespace) -> int:
    import cv2

    from firmware_bridge.camera.calibration import calibrate, write_calibration

    cfg = _camera_config(args.config)
    lay = cfg.layout
    if not (args.felt or args.back or args.dice):
        raise ValueError("give --felt and --back (the felt and the deck's back), --dice (the dice tray), or all three")
    if bool(args.felt) != bool(args.back):
        raise ValueError("--felt and --back go together: the back is told from the felt it lies on")

    def stills(names: list[str]) -> list:
        out = []
        for name in names:
            img = cv2.imread(name, cv2.IMREAD_COLOR)
            if img is None:
                raise ValueError(f"{name}: not an image OpenCV can read")
            if img.shape[:2] != (lay.height, lay.width):
                raise ValueError(f"{name} is {img.shape[1]}x{img.shape[0]}, the layout is {lay.width}x{lay.height}")
            out.append(img)
        return out

    report: dict[str, object] = {"config": args.config, "written": not args.dry_run}
    if args.felt:
        cal = calibrate(stills(args.felt), stills(args.back), lay.mm_per_px, ignore=lay.places_without_cards())
        if not args.dry_run:
            write_calibration(args.config, cal)
        assert cal.back is not None
        report.update({**cal.as_dict(), "back_description": cal.back.describe(), "warnings": list(cal.warnings)})
    if args.dice:
        report["dice"] = _calibrate_dice(args, cfg, stills(args.dice))
    print(json.dumps(report))
    return 0


def _calibrate_dice(args: argparse.Namespace, cfg, frames: list) -> dict[str, object]:
    from firmware_bridge.camera.dice_calibration import calibrate_dice, write_dice_calibration
    from firmware_bridge.camera.dice_zone import zone_box
    from firmware_bridge.camera.layout import LayoutError

    lay = cfg.layout
    zones = [z for z in lay.zones if lay.kind_of(z) == "dice"]
    if not zones:
        raise LayoutError(f"layout {lay.name!r} has no dice tray zone to calibrate")
    crops = []
    for zone in zones:
        x0, y0, x1, y1 = zone_box(lay, zone)
        crops += [f[y0:y1, x0:x1] for f in frames]
    # the camera's view is fitted in one zone's picture: with several trays, their size only
    dice = calibrate_dice(crops, cfg.die_mm / lay.mm_per_px, view=len(zones) == 1)
    if not args.dry_run:
        write_dice_calibration(args.config, dice)
    return {**dice.as_dict(), "zones": zones, "scale_die_px": round(cfg.die_mm / lay.mm_per_px, 2)}


def _accuracy(args: argparse.Namespace) -> int:
    import importlib

    from firmware_bridge.camera.suite import AccuracyOptions
    from station.games import get_game

    game = get_game(args.game)
    if game.camera_accuracy is None:
        raise ValueError(f"the game {args.game!r} declares no camera accuracy suite")
    module, _, name = game.camera_accuracy.partition(":")
    suite = getattr(importlib.import_module(module), name)

    def names(text: str | None, every: list[str]) -> list[str] | None:
        if not text:
            return None
        return every if text == "all" else text.split(",")

    opts = AccuracyOptions(frames=args.frames, presets=names(args.presets, []), styles=names(args.styles, _style_names()),
                           dice_sets=names(args.dice_sets, _dice_set_names()), dice_presets=names(args.dice_presets, []),
                           decoder=args.decoder, seed=args.seed)
    t0 = time.monotonic()
    tables = suite(opts)
    ok = all(t.passed for t in tables)
    if args.json:
        print(json.dumps({"game": args.game, "tables": [t.as_dict() for t in tables], "pass": ok}))
        return 0 if ok else 1
    print(f"{args.game} camera accuracy, decoder {args.decoder}, {args.frames} frames per perturbation, seed {args.seed}")
    for t in tables:
        print(f"\n{t.title}")
        print("  ".join(f"{c:>14}" for c in t.columns))
        for row in t.rows:
            print("  ".join(f"{row.get(c, '')!s:>14}" for c in t.columns))
        if args.examples:
            for e in t.examples:
                print(f"      {e}")
        print(t.verdict)
    print(f"\n{'PASS' if ok else 'FAIL'} ({time.monotonic() - t0:.0f} s)")
    return 0 if ok else 1


if __name__ == "__main__":  # pragma: no cover
    from station.cli import main

    raise SystemExit(main(["camera", *sys.argv[1:]]))
