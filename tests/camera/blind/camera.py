"""A pinhole camera over the table.

Table coordinates are millimetres: X to the right of the picture, Y towards the bottom of the
picture, Z into the table (so a die's top face lies at Z = -16 and the camera at Z = -height).
With Z pointing down the frame is right-handed and a camera looking straight down keeps the
table's X and Y as the image's x and y.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


@dataclass(frozen=True)
class Camera:
    K: np.ndarray  # 3x3 intrinsics, pixels
    R: np.ndarray  # 3x3 world -> camera rotation
    centre_mm: np.ndarray  # camera centre in table coordinates
    width_px: int
    height_px: int

    @classmethod
    def looking_at(cls, centre_mm, target_mm, focal_px: float, size_px: tuple[int, int], roll_rad: float = 0.0):
        """A camera at `centre_mm` looking at `target_mm`, image x along the table's X as far
        as the tilt allows, turned by `roll_rad` about its axis."""
        c = np.asarray(centre_mm, float)
        z = _unit(np.asarray(target_mm, float) - c)
        x = _unit(np.array([1.0, 0.0, 0.0]) - z * z[0])
        y = np.cross(z, x)
        cr, sr = np.cos(roll_rad), np.sin(roll_rad)
        x, y = cr * x + sr * y, -sr * x + cr * y
        R = np.stack([x, y, z])
        w, h = size_px
        K = np.array([[focal_px, 0.0, (w - 1) / 2.0], [0.0, focal_px, (h - 1) / 2.0], [0.0, 0.0, 1.0]])
        return cls(K=K, R=R, centre_mm=c, width_px=w, height_px=h)

    def project(self, pts_mm) -> np.ndarray:
        """Image points (N, 2) of table-space points (N, 3)."""
        p = np.atleast_2d(np.asarray(pts_mm, float))
        cam = (p - self.centre_mm) @ self.R.T
        uvw = cam @ self.K.T
        return uvw[:, :2] / uvw[:, 2:3]

    def homography(self, z_mm: float = 0.0) -> np.ndarray:
        """3x3 map from (X, Y, 1) on the plane Z = z_mm to image pixels."""
        t = -self.R @ self.centre_mm
        M = np.column_stack([self.R[:, 0], self.R[:, 1], self.R[:, 2] * z_mm + t])
        H = self.K @ M
        return H / H[2, 2]

    def mm_per_px(self, xy_mm) -> np.ndarray:
        """The coarsest table distance one pixel spans at each table point (N,) on Z = 0: the
        largest singular value of the image-to-table Jacobian."""
        H = self.homography()
        out = []
        for x, y in np.atleast_2d(np.asarray(xy_mm, float)):
            d = 0.5
            pts = np.array([[x, y], [x + d, y], [x, y + d]])
            img = apply_h(H, pts)
            J = np.column_stack([(img[1] - img[0]) / d, (img[2] - img[0]) / d])  # px per mm
            s = np.linalg.svd(J, compute_uv=False)
            out.append(1.0 / s.min())
        return np.array(out)

    def truth(self) -> dict:
        return {
            "K": self.K.round(4).tolist(),
            "R": self.R.round(6).tolist(),
            "centre_mm": self.centre_mm.round(2).tolist(),
            "table_to_image_H": self.homography().round(8).tolist(),
            "size_px": [self.width_px, self.height_px],
        }


def apply_h(H: np.ndarray, pts) -> np.ndarray:
    p = np.atleast_2d(np.asarray(pts, float))
    q = np.column_stack([p, np.ones(len(p))]) @ H.T
    return q[:, :2] / q[:, 2:3]


def rot2(theta: float) -> np.ndarray:
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, -s], [s, c]])


def rect_mm(cx: float, cy: float, w: float, h: float, theta: float) -> np.ndarray:
    """Corners (4, 2) of a w x h rectangle centred on (cx, cy), turned by theta, in the order
    top-left, top-right, bottom-right, bottom-left of the unturned rectangle."""
    half = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    return half @ rot2(theta).T + np.array([cx, cy])
