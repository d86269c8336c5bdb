"""A lens-free pinhole camera over the table, in millimetres.

Table frame: x to the right of the picture, y down the picture (towards the dealer in the seat
scenes), z into the table, so a point 16 mm above the felt has z = -16. The camera looks at
`target_mm` from `distance_mm` away; untilted it looks straight down, tilted it stands
`tilt_deg` off the vertical towards `tilt_azimuth_deg` (0: +x, 90: +y) and still looks at the
target; `roll_deg` turns the picture about the optical axis (how the camera is mounted). The
focal length is chosen so that at the target one pixel covers `mm_per_px` of table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np


def _rodrigues(axis: np.ndarray, angle_rad: float) -> np.ndarray:
    axis = np.asarray(axis, dtype=np.float64)
    n = np.linalg.norm(axis)
    if n < 1e-12 or abs(angle_rad) < 1e-15:
        return np.eye(3)
    k = axis / n
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(angle_rad) * kx + (1 - math.cos(angle_rad)) * (kx @ kx)


def rotation_between(a, b) -> np.ndarray:
    """The rotation that turns unit vector a onto unit vector b (the shortest one)."""
    a = np.asarray(a, dtype=np.float64) / np.linalg.norm(a)
    b = np.asarray(b, dtype=np.float64) / np.linalg.norm(b)
    c = float(np.clip(a @ b, -1.0, 1.0))
    if c > 1 - 1e-12:
        return np.eye(3)
    if c < -1 + 1e-12:
        # half a turn about any axis perpendicular to a
        perp = np.cross(a, [1.0, 0, 0])
        if np.linalg.norm(perp) < 1e-6:
            perp = np.cross(a, [0, 1.0, 0])
        return _rodrigues(perp, math.pi)
    return _rodrigues(np.cross(a, b), math.acos(c))


def rot_z(angle_deg: float) -> np.ndarray:
    return _rodrigues(np.array([0.0, 0.0, 1.0]), math.radians(angle_deg))


@dataclass(frozen=True)
class Camera:
    image_size: tuple[int, int]  # (width_px, height_px)
    mm_per_px: float
    target_mm: tuple[float, float] = (0.0, 0.0)
    tilt_deg: float = 0.0
    tilt_azimuth_deg: float = 90.0
    roll_deg: float = 0.0
    distance_mm: float = 1800.0
    _r_cw: np.ndarray = field(init=False, repr=False, compare=False)
    _centre_mm: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        if self.mm_per_px <= 0:
            raise ValueError(f"mm_per_px must be positive, got {self.mm_per_px}")
        if not (0 <= abs(self.tilt_deg) < 45):
            raise ValueError(f"tilt_deg must be within ±45°, got {self.tilt_deg}")
        t = math.radians(self.tilt_deg)
        az = math.radians(self.tilt_azimuth_deg)
        u = np.array([math.cos(az), math.sin(az), 0.0])
        down = np.array([0.0, 0.0, 1.0])  # into the table
        forward = -math.sin(t) * u + math.cos(t) * down
        r_tilt = rotation_between(down, forward)
        r_cw = r_tilt @ rot_z(self.roll_deg)  # camera axes (columns) in table coordinates
        target = np.array([self.target_mm[0], self.target_mm[1], 0.0])
        centre = target - self.distance_mm * forward
        object.__setattr__(self, "_r_cw", r_cw)
        object.__setattr__(self, "_centre_mm", centre)

    @property
    def width(self) -> int:
        return int(self.image_size[0])

    @property
    def height(self) -> int:
        return int(self.image_size[1])

    @property
    def focal_px(self) -> float:
        return self.distance_mm / self.mm_per_px

    @property
    def centre_mm(self) -> np.ndarray:
        return self._centre_mm.copy()

    def intrinsics(self, ss: int = 1) -> tuple[float, float, float]:
        """(focal, cx, cy) for a picture rendered `ss` times larger (pixel centres at integers)."""
        cx = (self.width - 1) / 2.0
        cy = (self.height - 1) / 2.0
        return self.focal_px * ss, (cx + 0.5) * ss - 0.5, (cy + 0.5) * ss - 0.5

    def to_camera(self, points_mm) -> np.ndarray:
        p = np.asarray(points_mm, dtype=np.float64).reshape(-1, 3)
        return (p - self._centre_mm) @ self._r_cw

    def project(self, points_mm, ss: int = 1) -> np.ndarray:
        """Pixel coordinates (N, 2) of table points (N, 3) or (N, 2) (on the felt)."""
        p = np.asarray(points_mm, dtype=np.float64)
        if p.ndim == 1:
            p = p.reshape(1, -1)
        if p.shape[1] == 2:
            p = np.hstack([p, np.zeros((len(p), 1))])
        pc = self.to_camera(p)
        if np.any(pc[:, 2] <= 1.0):
            raise ValueError("a point lies behind the camera")
        f, cx, cy = self.intrinsics(ss)
        return np.stack([f * pc[:, 0] / pc[:, 2] + cx, f * pc[:, 1] / pc[:, 2] + cy], axis=1)

    def faces_camera(self, point_mm, normal) -> bool:
        """Whether the front of a surface at point with outward normal is seen."""
        return float((self._centre_mm - np.asarray(point_mm, float)) @ np.asarray(normal, float)) > 1e-9

    def inverse_depth_plane(self, point_mm, normal, ss: int = 1) -> tuple[float, float, float]:
        """Coefficients (a, b, c) with 1/Z = a*u + b*v + c over the picture, for the plane
        through point_mm with the given normal (Z: depth along the optical axis)."""
        n_c = np.asarray(normal, float) @ self._r_cw
        p_c = self.to_camera(point_mm)[0]
        h = float(n_c @ p_c)
        if abs(h) < 1e-9:
            return 0.0, 0.0, 0.0
        f, cx, cy = self.intrinsics(ss)
        a = n_c[0] / f / h
        b = n_c[1] / f / h
        c = (n_c[2] - n_c[0] * cx / f - n_c[1] * cy / f) / h
        return a, b, c
