"""QR symbols as the sheet orders them printed: Model 2, version 1, error correction M."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import qrcode
from qrcode.constants import ERROR_CORRECT_M

QUIET_MODULES = 2
VERSION1_MODULES = 21


@lru_cache(maxsize=512)
def qr_modules(text: str) -> np.ndarray:
    """The 21 x 21 module matrix (True = dark) of `text`, without quiet zone."""
    code = qrcode.QRCode(version=1, error_correction=ERROR_CORRECT_M, border=0, box_size=1)
    code.add_data(text, optimize=0)
    code.make(fit=False)  # fails rather than grow past version 1
    m = np.array(code.get_matrix(), dtype=bool)
    if m.shape != (VERSION1_MODULES, VERSION1_MODULES):
        raise ValueError(f"{text!r} does not fit a version 1 symbol")
    m.setflags(write=False)
    return m
