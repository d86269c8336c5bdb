"""A pinhole camera over the table: world in millimetres, table plane z = 0, z up.

The camera sits at a height above a point beside the scene and looks at the scene, so the
scene is seen slightly off axis (the side faces of dice show in strips, rectangles on the
table become mild trapezoids)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Camera:
    K: np.ndarray          # 3x3 intrinsics (pixels)
    R: np.ndarray          # 3x3 world -> camera rotation
    C: np.ndarray          # camera centre, world mm
    width_px: int
    height_px: int

    @staticmethod
    def looking_at(target_mm, offset_mm, height_mm, mm_per_px, size_px, roll_rad=0.0):
        """A camera at target + (offset, height) aimed at `target`; `mm_per_px` is the table
        scale at the target."""
        target = np.array([target_mm[0], target_mm[1], 0.0])
        C = target + np.array([offset_mm[0], offset_mm[1], height_mm], float)
        z = target - C
        z /= np.linalg.norm(z)
        x = np.cross(z, [0.0, 1.0, 0.0])
        x /= np.linalg.norm(x)
        y = np.cross(z, x)
        c, s = np.cos(roll_rad), np.sin(roll_rad)
        x, y = c * x + s * y, -s * x + c * y
        R = np.stack([x, y, z])
        f = float(np.linalg.norm(target - C)) / mm_per_px
        w, h = size_px
        K = np.array([[f, 0, w / 2.0], [0, f, h / 2.0], [0, 0, 1.0]])
        return Camera(K, R, C, w, h)

    def project(self, pts_mm) -> np.ndarray:
        """World points (N x 3, or N x 2 on the table) -> pixel coordinates (N x 2)."""
        p = np.asarray(pts_mm, float).reshape(-1, np.shape(pts_mm)[-1])
        if p.shape[1] == 2:
            p = np.hstack([p, np.zeros((len(p), 1))])
        pc = (p - self.C) @ self.R.T
        uv = pc @ self.K.T
        return uv[:, :2] / uv[:, 2:3]

    def table_homography(self) -> np.ndarray:
        """3x3 map from table (x, y, 1) in mm to pixels."""
        t = -self.R @ self.C
        return self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], t])

    def rays(self, u, v) -> np.ndarray:
        """Unit world directions through pixel positions (arrays of equal shape) -> (..., 3)."""
        pix = np.stack([u, v, np.ones_like(u)], -1)
        d = pix @ np.linalg.inv(self.K).T @ self.R
        return d / np.linalg.norm(d, axis=-1, keepdims=True)

    def mm_per_px_at(self, xy_mm) -> float:
        """The coarser of the two table scales (mm per pixel) at a table point."""
        x, y = xy_mm
        eps = 1.0
        p0 = self.project([[x, y]])[0]
        px = self.project([[x + eps, y]])[0]
        py = self.project([[x, y + eps]])[0]
        return float(eps / min(np.linalg.norm(px - p0), np.linalg.norm(py - p0)))

    def to_json(self) -> dict:
        return {"K": self.K.round(4).tolist(), "R": self.R.round(6).tolist(),
                "C_mm": self.C.round(3).tolist(),
                "table_to_image_homography": self.table_homography().round(6).tolist()}
