"""Dice trays as the overhead camera sees them: each die a rounded cube, ray-marched through a
pinhole camera that looks at the tray from about 1.8 m, slightly off axis, so strips of the side
faces show; pips as round dimples; a directional light with soft shadows on the felt."""

from __future__ import annotations

import cv2
import numpy as np

from . import perturb
from .camera_model import Camera
from .dice_sets import DICE_SETS, DiceSet
from .hand import GLOVE, SKIN_TONES, draw_hand, hand_mask

DIE_MM = 16.0
FRAME_PX = (1920, 1080)
#: local face axes of a die (opposite faces sum to 7): (axis index, sign) -> face
FACE_OF_AXIS = {(2, 1): 1, (2, -1): 6, (0, 1): 2, (0, -1): 5, (1, 1): 3, (1, -1): 4}
AXIS_OF_FACE = {f: a for a, f in FACE_OF_AXIS.items()}
#: pip centres in units of the pip spacing
PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
        4: [(-1, -1), (-1, 1), (1, -1), (1, 1)], 5: [(-1, -1), (-1, 1), (0, 0), (1, -1), (1, 1)],
        6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)]}


def die_rotation(face_up: int, yaw: float, spin: int) -> np.ndarray:
    """Local -> world rotation of a die lying flat with `face_up` on top."""
    axis, sign = AXIS_OF_FACE[face_up]
    a = np.zeros(3)
    a[axis] = sign
    perps = [np.eye(3)[i] * sg for i in range(3) if i != axis for sg in (1, -1)]
    b = perps[spin % 4]
    M = np.column_stack([b, np.cross(a, b), a])
    c, s = np.cos(yaw), np.sin(yaw)
    Rz = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    return Rz @ M.T


def footprint(centre_xy, yaw, half=DIE_MM / 2) -> np.ndarray:
    c, s = np.cos(yaw), np.sin(yaw)
    corners = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    return corners @ np.array([[c, s], [-s, c]]) + np.asarray(centre_xy)


def _sdf(p, half, r):
    q = np.abs(p) - (half - r)
    qp = np.maximum(q, 0)
    outside = np.sqrt((qp * qp).sum(-1))
    return outside + np.minimum(q.max(-1), 0) - r


def _normal(p, half, r):
    q = np.abs(p) - (half - r)
    qp = np.maximum(q, 0)
    n = np.sign(p) * qp
    norm = np.linalg.norm(n, axis=-1, keepdims=True)
    inside = norm[..., 0] < 1e-9
    ax = np.argmax(q, -1)
    flat = np.zeros_like(p)
    flat[np.arange(len(p)), ax] = np.sign(p[np.arange(len(p)), ax])
    n = np.where(inside[:, None], flat, n / np.maximum(norm, 1e-9))
    return n


def _shade_dice(cam, dice, ds: DiceSet, L, light_rgb, img, ss=3):
    """Ray-march every die (the union of their distance fields, so touching dice hide each
    other correctly) in the pixel box around each, and composite onto `img` (linear RGB)."""
    half, r = DIE_MM / 2, ds.edge_radius_mm
    H, W = img.shape[:2]
    for d in dice:
        corners = np.array([[x, y, z] for x in (-half, half) for y in (-half, half)
                            for z in (0, DIE_MM)])
        c, sn = np.cos(d["yaw"]), np.sin(d["yaw"])
        world = np.c_[corners[:, :2] @ np.array([[c, sn], [-sn, c]]) + d["xy"], corners[:, 2]]
        uv = cam.project(world)
        x0, y0 = np.floor(uv.min(0)).astype(int) - 2
        x1, y1 = np.ceil(uv.max(0)).astype(int) + 2
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
        if x1 <= x0 or y1 <= y0:
            continue
        offs = (np.arange(ss) + 0.5) / ss - 0.5
        us = np.arange(x0, x1)[:, None] + offs[None, :]
        vs = np.arange(y0, y1)[:, None] + offs[None, :]
        U, V = np.meshgrid(us.ravel(), vs.ravel())
        dirs = cam.rays(U, V).reshape(-1, 3)
        n_rays = len(dirs)
        t = np.full(n_rays, np.inf)
        # march against every die; t is the nearest hit
        hit_die = np.full(n_rays, -1)
        hit_p = np.zeros((n_rays, 3))
        for k, e in enumerate(dice):
            centre = np.array([*e["xy"], half])
            o = (cam.C - centre) @ e["R"]
            dl = dirs @ e["R"]
            dist0 = np.linalg.norm(cam.C - centre)
            tt = np.full(n_rays, dist0 - half * 1.8)
            active = np.arange(n_rays)
            for _ in range(48):
                if not len(active):
                    break
                p = o + dl[active] * tt[active, None]
                step = _sdf(p, half, r)
                tt[active] += step
                keep = (step > 0.005) & (tt[active] < dist0 + half * 1.8)
                active = active[keep]
            p = o + dl * tt[:, None]
            ok = (np.abs(_sdf(p, half, r)) < 0.02) & (tt < t)
            t[ok] = tt[ok]
            hit_die[ok] = k
            hit_p[ok] = p[ok]
        col = np.zeros((n_rays, 3))
        for k, e in enumerate(dice):
            m = hit_die == k
            if not m.any():
                continue
            col[m] = _die_colour(hit_p[m], e, ds, dirs[m], L, light_rgb)
        hit = (hit_die >= 0).astype(float)
        sh, sw = (y1 - y0), (x1 - x0)
        hit = hit.reshape(sh, ss, sw, ss).mean((1, 3))
        col = col.reshape(sh, ss, sw, ss, 3).sum((1, 3)) / (ss * ss)
        patch = img[y0:y1, x0:x1]
        img[y0:y1, x0:x1] = patch * (1 - hit[..., None]) + col


def _die_colour(p, e, ds: DiceSet, dirs_w, L, light_rgb):
    half, r = DIE_MM / 2, ds.edge_radius_mm
    n = _normal(p, half, r)
    q = np.abs(p) - (half - r)
    ax = np.argmax(q, -1)
    sg = np.sign(p[np.arange(len(p)), ax]).astype(int)
    albedo = np.tile(np.asarray(ds.body_rgb, float), (len(p), 1))
    ao = np.ones(len(p))
    for (axis, sign), face in FACE_OF_AXIS.items():
        m = (ax == axis) & (sg == sign)
        if not m.any():
            continue
        others = [i for i in range(3) if i != axis]
        uvf = p[m][:, others]
        radius = (ds.one_pip_diameter_mm if face == 1 else ds.pip_diameter_mm) / 2
        centres = np.array(PIPS[face], float) * ds.pip_spacing_mm
        dist = np.linalg.norm(uvf[:, None, :] - centres[None], axis=-1)
        j = dist.argmin(1)
        dmin = dist[np.arange(len(j)), j]
        inpip = dmin < radius
        if not inpip.any():
            continue
        colour = np.asarray(ds.red_rgb if face in (1, 4) else ds.black_rgb, float)
        idx = np.flatnonzero(m)[inpip]
        albedo[idx] = colour
        off2 = (uvf[inpip] - centres[j[inpip]]) / radius
        off3 = np.zeros((len(idx), 3))
        off3[:, others[0]] = off2[:, 0]
        off3[:, others[1]] = off2[:, 1]
        nn = n[idx] - ds.pip_depth * off3
        n[idx] = nn / np.linalg.norm(nn, axis=-1, keepdims=True)
        ao[idx] = 0.75 + 0.25 * np.linalg.norm(off2, axis=-1)
    nw = n @ e["R"].T
    V = -dirs_w
    Hv = (L + V) / np.linalg.norm(L + V, axis=-1, keepdims=True)
    diff = np.clip(nw @ L, 0, 1)
    spec = np.clip((nw * Hv).sum(-1), 0, 1) ** 60 * ds.gloss
    sky = 0.5 + 0.5 * nw[:, 2]           # the room's light comes mostly from above
    light = np.asarray(light_rgb, float)
    col = albedo * ((0.28 * sky + 0.05)[:, None] * light + 0.8 * diff[:, None] * light)
    col = col * ao[:, None] + ds.translucency * np.asarray(ds.body_rgb) * 0.4
    return col + spec[:, None] * light


def _ground(cam, ds: DiceSet, tray, zone, dice, L, draw_zone_line, rng):
    """The felt, the tray and the dice's shadows, drawn in table millimetres and warped into
    the frame (linear RGB float)."""
    Hm = cam.table_homography()
    W, Hh = cam.width_px, cam.height_px
    img_corners = np.array([[0, 0], [W, 0], [W, Hh], [0, Hh]], float)
    g = cv2.perspectiveTransform(img_corners[None], np.linalg.inv(Hm))[0]
    gx0, gy0 = g.min(0) - 5
    gx1, gy1 = g.max(0) + 5
    tex_mm = float(cam.mm_per_px_at((0, 0))) * 0.9
    tw, th = int((gx1 - gx0) / tex_mm), int((gy1 - gy0) / tex_mm)

    def t(pts):  # table mm -> texture px (fixed point, 4 bits)
        return np.round((np.asarray(pts) - [gx0, gy0]) / tex_mm * 16).astype(np.int32)

    felt = np.asarray(ds.felt_rgb, np.float32)
    fibres = cv2.GaussianBlur(rng.normal(0, 1, (th, tw)).astype(np.float32), (0, 0), 0.8)
    blotch = cv2.resize(rng.normal(0, 1, (th // 40 + 2, tw // 40 + 2)).astype(np.float32),
                        (tw, th), interpolation=cv2.INTER_CUBIC)
    tex = felt[None, None, :] * (1 + 0.10 * fibres + 0.04 * blotch)[..., None]
    if draw_zone_line:
        cv2.polylines(tex, [t(zone)], True, (0.55, 0.45, 0.20), max(1, int(1.5 / tex_mm)),
                      cv2.LINE_AA, shift=4)
    outer, inner = tray
    cv2.fillPoly(tex, [t(outer)], ds.rim_rgb, cv2.LINE_AA, shift=4)
    # the tray and its dice's shadows only touch a window round the tray: work there
    bx0, by0 = np.maximum((outer.min(0) - [gx0, gy0]) / tex_mm - 20, 0).astype(int)
    bx1, by1 = np.minimum((outer.max(0) - [gx0, gy0]) / tex_mm + 20, [tw, th]).astype(int)
    win = tex[by0:by1, bx0:bx1]
    wh, ww = win.shape[:2]

    def tw_(pts):
        return t(pts) - np.array([bx0, by0]) * 16

    lining = np.zeros((wh, ww), np.float32)
    cv2.fillPoly(lining, [tw_(inner)], 1.0, cv2.LINE_AA, shift=4)
    lin_col = np.asarray(ds.tray_rgb, np.float32) * (1 + 0.08 * fibres[by0:by1, bx0:bx1])[..., None]
    # the rim's inner wall darkens the lining next to it
    wall = cv2.GaussianBlur(1 - lining, (0, 0), 2.0 / tex_mm)
    lin_col *= (1 - 0.35 * wall)[..., None]
    win = win * (1 - lining[..., None]) + lin_col * lining[..., None]
    shadow = np.zeros((wh, ww), np.float32)
    contact = np.zeros((wh, ww), np.float32)
    sx, sy = -L[0] / L[2] * DIE_MM, -L[1] / L[2] * DIE_MM
    for d in dice:
        fp = footprint(d["xy"], d["yaw"])
        pts = np.vstack([fp, fp + [sx, sy]]).astype(np.float32)
        hull = cv2.convexHull(pts)[:, 0]
        cv2.fillPoly(shadow, [tw_(hull)], 1.0, cv2.LINE_AA, shift=4)
        cv2.fillPoly(contact, [tw_(fp)], 1.0, cv2.LINE_AA, shift=4)
    if dice:
        shadow = cv2.GaussianBlur(shadow, (0, 0), 1.5 / tex_mm)
        contact = cv2.GaussianBlur(contact, (0, 0), 0.8 / tex_mm)
        win *= (1 - 0.55 * shadow - 0.3 * contact)[..., None]
    tex[by0:by1, bx0:bx1] = win
    T = np.array([[1 / tex_mm, 0, -gx0 / tex_mm], [0, 1 / tex_mm, -gy0 / tex_mm], [0, 0, 1]])
    return cv2.warpPerspective(tex, Hm @ np.linalg.inv(T), (W, Hh), flags=cv2.INTER_LINEAR)


def _rounded_rect(w, h, r, centre=(0.0, 0.0), n=8):
    pts = []
    for cx, cy, a0 in [(w / 2 - r, h / 2 - r, 0), (-w / 2 + r, h / 2 - r, 90),
                       (-w / 2 + r, -h / 2 + r, 180), (w / 2 - r, -h / 2 + r, 270)]:
        for a in np.radians(np.linspace(a0, a0 + 90, n)):
            pts.append((centre[0] + cx + r * np.cos(a), centre[1] + cy + r * np.sin(a)))
    return np.array(pts)


def _inside(fp, w, h):
    return bool(np.all(np.abs(fp[:, 0]) <= w / 2 + 1e-6) and np.all(np.abs(fp[:, 1]) <= h / 2 + 1e-6))


def _overlap(a, b):
    area, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return area > 0.2


def _place_dice(n, ds: DiceSet, rng):
    """Centres (table mm, tray centred at 0) and yaws: free, touching each other, or touching
    the tray's wall, at any rotation."""
    w, h = ds.tray_inner_mm
    half = DIE_MM / 2
    for _ in range(500):
        dice = []
        mode = rng.choice(["free", "touch_each_other", "touch_wall", "touch_both"])
        yaw = rng.uniform(0, 2 * np.pi)
        reach = half * (abs(np.cos(yaw)) + abs(np.sin(yaw)))
        xy = rng.uniform([-w / 2 + reach, -h / 2 + reach], [w / 2 - reach, h / 2 - reach])
        if mode in ("touch_wall", "touch_both"):
            side = rng.integers(4)
            if side == 0:
                xy[0] = w / 2 - reach
            elif side == 1:
                xy[0] = -w / 2 + reach
            elif side == 2:
                xy[1] = h / 2 - reach
            else:
                xy[1] = -h / 2 + reach
        dice.append({"xy": xy, "yaw": yaw})
        if n == 2:
            if mode in ("touch_each_other", "touch_both"):
                yaw2 = yaw + rng.normal(0, 0.02)
                k = rng.integers(4)
                ang = yaw + k * np.pi / 2
                slide = rng.uniform(-11, 11)
                gap = DIE_MM + 0.15
                xy2 = xy + gap * np.array([np.cos(ang), np.sin(ang)]) \
                    + slide * np.array([-np.sin(ang), np.cos(ang)])
            else:
                yaw2 = rng.uniform(0, 2 * np.pi)
                reach2 = half * (abs(np.cos(yaw2)) + abs(np.sin(yaw2)))
                xy2 = rng.uniform([-w / 2 + reach2, -h / 2 + reach2], [w / 2 - reach2, h / 2 - reach2])
            dice.append({"xy": xy2, "yaw": yaw2})
        fps = [footprint(d["xy"], d["yaw"]) for d in dice]
        if not all(_inside(fp, w, h) for fp in fps):
            continue
        if n == 2 and _overlap(fps[0], fps[1]):
            continue
        return dice, (mode if n == 2 else mode.replace("touch_each_other", "free")
                      .replace("touch_both", "touch_wall"))
    raise RuntimeError("could not place the dice")


class DiceTable:
    """What stays from one frame to the next at a table: the camera, the tray, the lights."""

    def __init__(self, ds: DiceSet, table: int):
        rng = np.random.default_rng([table, 1, sum(map(ord, ds.name))])
        mm_per_px = rng.uniform(*ds.mm_per_px)
        off = rng.uniform(*ds.camera_offset_mm)
        off_ang = rng.uniform(0, 2 * np.pi)
        # the tray anywhere in the frame that keeps its zone inside
        target = rng.uniform(-60, 60, 2)
        self.cam = Camera.looking_at(target, (off * np.cos(off_ang), off * np.sin(off_ang)),
                                     rng.uniform(1700, 1900), mm_per_px, FRAME_PX,
                                     roll_rad=rng.uniform(-np.pi, np.pi))
        self.light_el = np.radians(rng.uniform(*ds.light_elevation_deg))
        self.light_az = rng.uniform(0, 2 * np.pi)
        w, h = ds.tray_inner_mm
        rim = rng.uniform(8, 14)
        self.tray = (_rounded_rect(w + 2 * rim, h + 2 * rim, rim + 4), _rounded_rect(w, h, 4))
        margin = rng.uniform(15, 30)
        self.zone = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * [(w / 2 + rim + margin),
                                                                     (h / 2 + rim + margin)]
        self.inner = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * [w / 2, h / 2]
        self.zone_line = bool(rng.random() < 0.6)


def render_dice_calibration(set_name: str, table: int = 0):
    """The empty tray as the table's camera sees it. CARD_FACES.md describes no calibration
    marks for the dice tray, so the still is the empty felt and tray (with the DICE zone's
    printed line where this table has one) -> (BGR image, truth)."""
    ds = perturb.pick(DICE_SETS, set_name, "dice set")
    tb = DiceTable(ds, table)
    rng = np.random.default_rng([table, 3, sum(map(ord, set_name))])
    el, az = tb.light_el, tb.light_az
    L = np.array([np.cos(el) * np.cos(az), np.cos(el) * np.sin(az), np.sin(el)])
    img = _ground(tb.cam, ds, tb.tray, tb.zone, [], L, tb.zone_line, rng)
    return perturb.sensor(img, rng), {
        "kind": "dice_calibration", "set": set_name, "table": table,
        "image_size_px": list(FRAME_PX),
        "zones": {"DICE": {"corners_px": tb.cam.project(tb.zone).round(2).tolist(),
                           "tray_inner_corners_px": tb.cam.project(tb.inner).round(2).tolist(),
                           "expected": []}},
        "camera": tb.cam.to_json()}


def render_dice_scene(set_name: str, seed: int, perturbation: str = "sharp", table: int = 0):
    """A 1920x1080 frame of a dice tray -> (BGR uint8 image, truth dict). `table` fixes the
    camera, tray and lights (as render_dice_calibration shows them); `seed` the throw."""
    ds = perturb.pick(DICE_SETS, set_name, "dice set")
    perturb.pick(perturb.PERTURBATIONS, perturbation, "perturbation")
    tb = DiceTable(ds, table)
    cam = tb.cam
    rng = np.random.default_rng([seed, 2, table, sum(map(ord, set_name))])
    # the studio's lights stay; the dealer and the room move them a little
    el = tb.light_el + np.radians(rng.normal(0, 3))
    az = tb.light_az + np.radians(rng.normal(0, 5))
    L = np.array([np.cos(el) * np.cos(az), np.cos(el) * np.sin(az), np.sin(el)])
    warm = rng.uniform(0.9, 1.1)
    light_rgb = np.asarray(ds.light_rgb) * [warm, 1.0, 2 - warm] * rng.uniform(0.85, 1.1)

    count = rng.choice([0, 1, 2], p=[0.06, 0.14, 0.80])
    dice, mode = _place_dice(int(count), ds, rng) if count else ([], "empty")
    for d in dice:
        d["face"] = int(rng.integers(1, 7))
        d["R"] = die_rotation(d["face"], d["yaw"], int(rng.integers(4)))
    zone = tb.zone
    img = _ground(cam, ds, tb.tray, zone, dice, L, tb.zone_line, rng)
    _shade_dice(cam, dice, ds, L, light_rgb, img)

    # the dealer's hand: none, over one die, or over the whole tray
    hand_case = rng.choice(["none", "over_dice", "over_tray"], p=[0.8, 0.12, 0.08]) \
        if dice else "none"
    mask = None
    if hand_case != "none":
        colour = GLOVE if rng.random() < 0.25 else SKIN_TONES[rng.integers(len(SKIN_TONES))]
        if hand_case == "over_dice":
            k = int(rng.integers(len(dice)))
            ang = rng.uniform(0, 2 * np.pi)
            tip = dice[k]["xy"]
            palm = tip - 110 * np.array([np.cos(ang), np.sin(ang)])
            mask = hand_mask(cam, palm, ang, rng.uniform(40, 90), rng.uniform(0.85, 1.05), ss=2)
        else:
            ang = rng.uniform(0, 2 * np.pi)
            palm = -40 * np.array([np.cos(ang), np.sin(ang)]) + rng.uniform(-10, 10, 2)
            mask = hand_mask(cam, palm, ang, rng.uniform(60, 120), rng.uniform(1.1, 1.3), ss=2)
        img = draw_hand(img, mask, L[:2], colour, rng)

    bgr = perturb.sensor(img, rng)
    bgr = perturb.apply(perturbation, bgr, rng)

    truth_dice = []
    for d in dice:
        top = np.c_[footprint(d["xy"], d["yaw"]), np.full(4, DIE_MM)]
        top_px = cam.project(top)
        inside = bool(np.all((top_px >= 0) & (top_px < [FRAME_PX[0] - 1, FRAME_PX[1] - 1])))
        covered = False
        if mask is not None:
            poly = np.zeros(mask.shape, np.uint8)
            cv2.fillConvexPoly(poly, np.round(top_px).astype(np.int32), 1)
            covered = bool((mask[poly > 0] > 0.02).any())
        pip_d = min(ds.pip_diameter_mm, ds.one_pip_diameter_mm)
        truth_dice.append({
            "face": d["face"], "in_full_view": inside and not covered,
            "centre_px": cam.project([[*d["xy"], DIE_MM]])[0].round(2).tolist(),
            "top_face_corners_px": top_px.round(2).tolist(),
            "pip_diameter_px": round(pip_d / cam.mm_per_px_at(d["xy"]), 2),
            "yaw_deg": round(float(np.degrees(d["yaw"])) % 360, 2)})
    if hand_case == "over_tray" and not any(t["in_full_view"] for t in truth_dice):
        expected = None
    else:
        hand_case = "over_dice" if hand_case == "over_tray" else hand_case
        expected = sorted(t["face"] if t["in_full_view"] else 0 for t in truth_dice)
    truth = {
        "kind": "dice", "set": set_name, "seed": seed, "perturbation": perturbation,
        "table": table,
        "image_size_px": list(FRAME_PX), "mm_per_px_at_tray": round(cam.mm_per_px_at((0, 0)), 4),
        "layout": mode, "hand": hand_case,
        "zones": {"DICE": {"corners_px": cam.project(zone).round(2).tolist(),
                           "tray_inner_corners_px": cam.project(tb.inner).round(2).tolist(),
                           "expected": expected, "dice": truth_dice}},
        "camera": cam.to_json(),
        "light": {"elevation_deg": round(float(np.degrees(el)), 1),
                  "azimuth_deg": round(float(np.degrees(az)), 1)},
    }
    return bgr, truth
