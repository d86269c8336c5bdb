"""`station camera`: the overhead camera from the command line.

    station camera snapshot --config config/camera_pokdeng_1080p.toml --out table.png
    station camera read --config config/camera_pokdeng_1080p.toml frame1.png frame2.jpg
    station camera render --out frame.png --seed 4 [--perturbations dim]
    station camera accuracy [--frames 250] [--presets clean,dim] [--decoder zbar]

`snapshot` is for calibration at a real table: it saves the current frame with the zones
and the recogniser's view drawn on it. `read` prints one JSON line per still image so a
frame grabbed at a table can be checked by hand. `render` draws a random synthetic table
and prints its truth. `accuracy` runs the accuracy suite (docs/camera.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import time


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="camera_command", metavar="ACTION", required=True)
    snap = sub.add_parser("snapshot", help="save a PNG of the current frame with zones and the recogniser's view")
    snap.add_argument("--config", help="camera config TOML (default: embedded layout, synthetic camera)")
    snap.add_argument("--source", help="override the config's frame source (device, URL, file, folder, synthetic)")
    snap.add_argument("--out", default="camera_snapshot.png", help="PNG to write (default %(default)s)")
    snap.add_argument("--frames", type=int, default=6, help="frames to watch before saving, so zones settle (default %(default)s)")
    snap.add_argument("--timeout", type=float, default=10.0, help="give up after this many seconds without frames")
    rd = sub.add_parser("read", help="read still images: one JSON line per image")
    rd.add_argument("--config", help="camera config TOML (default: embedded layout)")
    rd.add_argument("--decoder", choices=("auto", "zbar", "zxing"), help="override the config's QR decoder")
    rd.add_argument("images", nargs="+", metavar="IMAGE")
    ren = sub.add_parser("render", help="draw a random synthetic table to a PNG and print its truth")
    ren.add_argument("--config", help="camera config TOML (default: embedded layout)")
    ren.add_argument("--out", required=True)
    ren.add_argument("--seed", type=int, default=1)
    ren.add_argument("--perturbations", default="clean", help="a preset name (see `accuracy --help`)")
    acc = sub.add_parser("accuracy", help="run the accuracy suite on synthetic frames")
    acc.add_argument("--frames", type=int, default=250, help="frames per perturbation (default %(default)s)")
    acc.add_argument("--presets", help="comma-separated perturbation presets (default: all)")
    acc.add_argument("--decoder", default="auto", choices=("auto", "zbar", "zxing"))
    acc.add_argument("--seed", type=int, default=1)
    acc.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    acc.add_argument("--examples", action="store_true", help="also list misread zones")


def run(args: argparse.Namespace) -> int:
    from firmware_bridge.camera.layout import LayoutError
    from firmware_bridge.camera.sources import SourceError

    try:
        return {"snapshot": _snapshot, "read": _read, "render": _render, "accuracy": _accuracy}[args.camera_command](args)
    except (LayoutError, SourceError, ValueError) as exc:
        print(f"station camera {args.camera_command}: {exc}", file=sys.stderr)
        return 2


def _snapshot(args: argparse.Namespace) -> int:
    import cv2

    from firmware_bridge.camera.config import load_camera_config
    from firmware_bridge.camera.overlay import draw_view
    from firmware_bridge.camera.recogniser import Recogniser
    from firmware_bridge.camera.sources import open_source

    cfg = load_camera_config(args.config)
    spec = args.source if args.source else cfg.source
    source = open_source(spec, layout=cfg.layout)  # type: ignore[arg-type]
    rec = Recogniser(cfg.layout, stable_frames=cfg.stable_frames, decoder=cfg.decoder)
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
    out = draw_view(frame, cfg.layout, rec, states)
    if not cv2.imwrite(args.out, out):
        print(f"station camera snapshot: cannot write {args.out}", file=sys.stderr)
        return 1
    print(json.dumps({"snapshot": args.out, "frames": seen, "zones": states, "cut_card": rec.cut_card_visible}))
    return 0


def _read(args: argparse.Namespace) -> int:
    import cv2

    from firmware_bridge.camera.config import load_camera_config
    from firmware_bridge.camera.recogniser import Recogniser

    cfg = load_camera_config(args.config)
    rec = Recogniser(cfg.layout, decoder=args.decoder or cfg.decoder)
    rc = 0
    for name in args.images:
        frame = cv2.imread(name, cv2.IMREAD_COLOR)
        if frame is None:
            print(json.dumps({"image": name, "error": "not an image OpenCV can read"}))
            rc = 1
            continue
        try:
            zones, cut = rec.read_still(frame)
        except ValueError as exc:
            print(json.dumps({"image": name, "error": str(exc)}))
            rc = 1
            continue
        # A zone the dealer's hand covers is reported as null: nothing can be read there.
        print(json.dumps({"image": name, "zones": zones, "cut_card": cut}), flush=True)
    return rc


def _render(args: argparse.Namespace) -> int:
    import random

    import cv2

    from firmware_bridge.camera.accuracy import random_table
    from firmware_bridge.camera.config import load_camera_config
    from firmware_bridge.camera.synthetic import SyntheticCamera

    cfg = load_camera_config(args.config)
    scene = random_table(random.Random(args.seed), args.seed)
    cam = SyntheticCamera(scene, cfg.layout, perturbations=args.perturbations, seed=args.seed)
    got = None
    while got is None:
        got = cam.read()
    if not cv2.imwrite(args.out, got[1]):
        print(f"station camera render: cannot write {args.out}", file=sys.stderr)
        return 1
    print(json.dumps({"image": args.out, "zones": scene.snapshot(), "cut_card": scene.cut_card_visible}))
    return 0


def _accuracy(args: argparse.Namespace) -> int:
    from firmware_bridge.camera import accuracy
    from firmware_bridge.camera.synthetic import PRESETS

    presets = args.presets.split(",") if args.presets else list(PRESETS)
    t0 = time.monotonic()
    results = accuracy.run(presets, frames=args.frames, seed=args.seed, decoder=args.decoder)
    total = accuracy.totals(results)
    ok = total["wrong_identity"] == 0 and float(total["correct_pct"]) >= 99.5  # type: ignore[arg-type]
    if args.json:
        print(json.dumps({"presets": [r.as_dict() for r in results], "total": total, "pass": ok}))
        return 0 if ok else 1
    cols = ("preset", "frames", "zone_states", "correct", "xx", "wrong_identity", "miscount", "held", "cut_flag_wrong", "correct_pct", "ms_per_frame")
    print(f"accuracy suite, decoder {args.decoder}, {args.frames} frames per perturbation, seed {args.seed}")
    print("  ".join(f"{c:>14}" for c in cols))
    for r in results:
        d = r.as_dict()
        print("  ".join(f"{d[c]!s:>14}" for c in cols))
        if args.examples:
            for e in r.examples:
                print(f"      {e}")
    print("  ".join(f"{total.get(c, 'TOTAL' if c == 'preset' else '')!s:>14}" for c in cols))
    print(f"{'PASS' if ok else 'FAIL'}: wrong identities {total['wrong_identity']} (must be 0), "
          f"correct {total['correct_pct']}% of zone states (must be >= 99.5%); {time.monotonic() - t0:.0f} s")
    return 0 if ok else 1


if __name__ == "__main__":  # pragma: no cover
    from station.cli import main

    raise SystemExit(main(["camera", *sys.argv[1:]]))
