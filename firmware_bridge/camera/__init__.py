"""The overhead camera: frames of the table in, TRACES.md camera observations out.

    layout = load_layout("config/camera_<game>_1080p.toml")  # the table's own layout
    scene = TableScene(layout.zone_names)
    camera = SyntheticCamera(scene, layout, perturbations="dim", seed=1)
    rec = Recogniser(layout)
    CameraObserver(camera, rec, on_observation=core_input).start()

See docs/camera.md for the studio side (placement, lighting, calibration).
"""

from firmware_bridge.camera.decoders import QrRead, make_decoder
from firmware_bridge.camera.faces import CardArtist, face_text, parse_face_text
from firmware_bridge.camera.layout import Layout, LayoutError, Zone, load_layout
from firmware_bridge.camera.observer import CameraObserver, ObservationTracker
from firmware_bridge.camera.recogniser import Recogniser
from firmware_bridge.camera.scene import CUT, FACE_DOWN, UNREADABLE, TableScene
from firmware_bridge.camera.sources import (
    FrameSource,
    ImageFolderSource,
    SourceError,
    VideoFileSource,
    open_source,
)
from firmware_bridge.camera.synthetic import PRESETS, Perturbations, SyntheticCamera, TableRenderer

__all__ = [
    "CUT",
    "FACE_DOWN",
    "PRESETS",
    "UNREADABLE",
    "CameraObserver",
    "CardArtist",
    "FrameSource",
    "ImageFolderSource",
    "Layout",
    "LayoutError",
    "ObservationTracker",
    "Perturbations",
    "QrRead",
    "Recogniser",
    "SourceError",
    "SyntheticCamera",
    "TableRenderer",
    "TableScene",
    "VideoFileSource",
    "Zone",
    "face_text",
    "load_layout",
    "make_decoder",
    "open_source",
    "parse_face_text",
]
