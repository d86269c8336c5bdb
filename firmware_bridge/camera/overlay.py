"""Drawing the recogniser's view on a frame, for calibrating zones at a real table."""

from __future__ import annotations

import cv2
import numpy as np

from firmware_bridge.camera.layout import Layout
from firmware_bridge.camera.recogniser import Recogniser

ZONE_COLOUR = (0, 215, 255)  # amber
DOWN_COLOUR = (255, 160, 0)
UP_COLOUR = (255, 255, 255)
CUT_COLOUR = (0, 0, 255)
QR_COLOUR = (255, 0, 255)
UNKNOWN_COLOUR = (0, 128, 255)  # orange: a back the calibration does not know


def draw_view(frame: np.ndarray, layout: Layout, recogniser: Recogniser | None = None,
              states: dict[str, list[str] | None] | None = None) -> np.ndarray:
    """A copy of `frame` with the zones, what the recogniser found in each (blobs, card
    counts, QR symbols and their texts) and each zone's reading written on it."""
    out = frame.copy()
    scale = max(0.5, layout.width / 1920)
    font = cv2.FONT_HERSHEY_SIMPLEX
    for name, zone in layout.zones.items():
        pts = np.asarray(zone.polygon, np.float32).round().astype(np.int32)
        cv2.polylines(out, [pts], True, ZONE_COLOUR, max(2, int(3 * scale)), cv2.LINE_AA)
        view = recogniser.views.get(name) if recogniser is not None else None
        if view is not None:
            for blob in view.blobs:
                colour = UNKNOWN_COLOUR if blob.unknown else (
                    CUT_COLOUR if blob.cut else (UP_COLOUR if blob.face_up else DOWN_COLOUR))
                cv2.polylines(out, [blob.contour.round().astype(np.int32)], True, colour, max(1, int(2 * scale)), cv2.LINE_AA)
                label = (f"{blob.cards} card(s), unknown back" if blob.unknown
                         else f"{blob.cards} card(s), {blob.face_up} up" + (", CUT" if blob.cut else ""))
                cv2.putText(out, label, (blob.box[0], max(12, blob.box[1] - 6)), font, 0.55 * scale, colour, 1, cv2.LINE_AA)
            for q in view.qr:
                poly = np.asarray(q.polygon, np.float32).round().astype(np.int32)
                cv2.polylines(out, [poly], True, QR_COLOUR, max(1, int(2 * scale)), cv2.LINE_AA)
                cv2.putText(out, q.text, (int(q.centre[0]) - 20, int(q.centre[1])), font, 0.6 * scale, QR_COLOUR, 2, cv2.LINE_AA)
        reading: list[str] | None | str
        if states is not None and name in states:
            reading = states[name]
        elif view is not None:
            reading = None if view.reading is None else list(view.reading)
        else:
            reading = "not read"
        held = "unknown back (not read)" if view is not None and view.unknown_back else "covered (held)"
        text = f"{name}: " + (held if reading is None else (reading if isinstance(reading, str) else " ".join(reading) or "empty"))
        x0, y0, _, _ = zone.bbox
        org = (x0 + int(8 * scale), y0 + int(28 * scale))
        cv2.putText(out, text, org, font, 0.8 * scale, (0, 0, 0), int(5 * scale), cv2.LINE_AA)
        cv2.putText(out, text, org, font, 0.8 * scale, ZONE_COLOUR, max(1, int(2 * scale)), cv2.LINE_AA)
    if recogniser is not None and recogniser.cut_card_visible:
        cv2.putText(out, "CUT CARD IN VIEW", (int(20 * scale), layout.height - int(20 * scale)), font, 1.0 * scale, CUT_COLOUR, max(2, int(3 * scale)), cv2.LINE_AA)
    return out
