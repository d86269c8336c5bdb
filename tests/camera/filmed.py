"""A filmed table for the camera's end-to-end tests: the synthetic camera films the scene on a
virtual clock, the recogniser and the observation tracker turn its frames into camera
observations, and those go into a trace in TRACES.md format beside the shoe's frames (built
with the shoe codec, a heartbeat each second) and the dealer's and bettors' lines."""

from __future__ import annotations

from typing import Any

from firmware_bridge.camera import ObservationTracker, SyntheticCamera
from firmware_bridge.shoe.codec import encode_frame

FRAME_STEP = 0.25  # the camera at 4 frames a second of table time


class FilmedTrace:
    def __init__(self, scene: Any, layout: Any, recogniser: Any, header: dict, *,
                 perturbations: Any, camera_seed: int) -> None:
        self.t = 0.0
        self.scene = scene
        self.camera = SyntheticCamera(scene, layout, perturbations=perturbations,
                                      seed=camera_seed, clock=lambda: self.t)
        self.recogniser = recogniser
        self.tracker = ObservationTracker(heartbeat=0.5)
        self.lines: list[dict] = [header]
        self.seq = 0
        self.last_shoe = 0.0
        self.observations: list[dict] = []

    def shoe(self, type_: str, *fields: str) -> None:
        self.seq = 0 if type_ == "HELLO" else self.seq + 1
        self.lines.append({"t": round(self.t, 3),
                           "shoe": encode_frame(self.seq, type_, *fields).decode("latin-1")})
        self.last_shoe = self.t

    def line(self, **kv: Any) -> None:
        self.lines.append({"t": round(self.t, 3), **kv})

    def advance(self, seconds: float) -> None:
        end = self.t + seconds
        while self.t + FRAME_STEP <= end + 1e-9:
            self.t += FRAME_STEP
            if self.t - self.last_shoe >= 0.99:
                self.shoe("HB", str(int(self.t * 1000)))
            got = self.camera.read()
            if got is None:
                continue  # a dropped frame: nothing seen, nothing said
            obs = self.tracker.update(got[0], self.recogniser.process(*got))
            if obs is not None:
                self.line(camera=obs)
                self.observations.append(obs)

    def open_shoe(self) -> None:
        """The shoe boots, a wallet is set, the dealer starts a shoe, the supervisor confirms
        the shuffle and the shoe is loaded, each a moment after the one before."""
        self.shoe("HELLO", "1", "DS8", "SH-0042", "2.1.0", "C9498373")
        self.line(wallet={"account": "u1", "balance": 10000})
        self.advance(1.0)
        self.line(dealer="new_shoe")
        self.advance(0.5)
        self.line(supervisor="confirm_shuffle", user="sup1")
        self.advance(0.5)
        self.shoe("LOAD")
        self.advance(1.0)

