"""Undoing a soft picture before a second try at its QR codes.

A card's code is 22 mm for 21 modules: about 1 mm a module, three to three and a half pixels
at the 0.30-0.33 mm per pixel the sheet asks for. A lens slightly out of focus spreads each
point over a couple of pixels, and the modules run into one another: neither decoder finds
the finder patterns any more, though the information is still in the picture, only
attenuated at the modules' frequency.

A Wiener filter restores it: divide the picture's spectrum by the blur's, where the blur
left enough of the signal, and let the rest go (the noise-to-signal ratio). The blur's true
shape is not known (defocus is a disc, most lenses near a Gaussian), so a short ladder of
Gaussian widths is tried, each with the ratio its width tolerates: a wider blur needs a
smaller ratio to bring its modules back, and amplifies the noise more. A shaken camera (a
line, not a disc) is not undone by it (docs/camera.md has the figures).

A view that is wrong for the picture simply does not decode; a view that decodes has passed
the code's own error correction, and the recogniser still asks both codes of a card to agree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import cv2
import numpy as np

# (Gaussian width in pixels, noise-to-signal ratio), tried nearest the measured blur first;
# chosen on the blind renderer's showdowns blurred by Gaussians, discs, noise and JPEG
# (docs/camera.md, "Soft pictures"). A disc (defocus) of radius r restores best as a Gaussian
# of about r / 1.5 with a large ratio, hence (2.0, 1e-2); (3.0, 1e-4) is for a clean picture
# that is very soft.
WIENER_LADDER: tuple[tuple[float, float], ...] = (
    (1.25, 1e-2),
    (2.0, 1e-2),
    (1.75, 3e-3),
    (2.25, 1e-3),
    (2.75, 3e-4),
    (3.0, 1e-4),
)


#: the mirrored border (px) round a crop before its spectrum is taken, so its edges do not
#: ring: three widths of the ladder's widest Gaussian and a few pixels more (one border for
#: every rung, as the spectrum is taken once; a rung of a narrower Gaussian had a narrower
#: one before, which changes its view only within about 20 px of the crop's edge, the
#: blob's margin)
PAD_PX = int(3 * max(sigma for sigma, _ in WIENER_LADDER)) + 4


class Restorer:
    """One crop's spectrum, taken once (when the first view is asked for), from which each
    rung of the ladder is one multiplication and one inverse transform: the forward transform
    is a large part of a rung's cost, and a soft showdown may try every rung. The spectrum is
    kept in OpenCV's packed form (a real picture's spectrum is symmetric; half of it says
    all), which makes a rung about a third of the full complex one's cost."""

    def __init__(self, gray: np.ndarray) -> None:
        self._gray = gray
        self._spectrum: np.ndarray | None = None

    def _padded_spectrum(self) -> np.ndarray:
        if self._spectrum is None:
            h, w = self._gray.shape
            dft_h = cv2.getOptimalDFTSize(h + 2 * PAD_PX)
            dft_w = cv2.getOptimalDFTSize(w + 2 * PAD_PX)
            src = cv2.copyMakeBorder(self._gray.astype(np.float32), PAD_PX, dft_h - h - PAD_PX,
                                     PAD_PX, dft_w - w - PAD_PX, cv2.BORDER_REFLECT)
            self._spectrum = cv2.dft(src)
        return self._spectrum

    def view(self, sigma_px: float, nsr: float) -> np.ndarray:
        """The crop (uint8) with a Gaussian blur of `sigma_px` undone, up to `nsr`."""
        spectrum = self._padded_spectrum()
        dft_h, dft_w = spectrum.shape
        restored = spectrum * _wiener_gain(dft_h, dft_w, sigma_px, nsr)
        h, w = self._gray.shape
        out = cv2.idft(restored, flags=cv2.DFT_REAL_OUTPUT | cv2.DFT_SCALE)[PAD_PX : PAD_PX + h, PAD_PX : PAD_PX + w]
        return np.clip(out + 0.5, 0, 255).astype(np.uint8)


def _wiener_gain(dft_h: int, dft_w: int, sigma_px: float, nsr: float) -> np.ndarray:
    """The filter for one rung on a spectrum of dft_h x dft_w, laid out as OpenCV packs a real
    picture's spectrum (CCS), so that the spectrum times it, element by element, is the
    filtered spectrum. Per frequency it is G / (G^2 + nsr), G the Gaussian's transform,
    separable: exp(-2 pi^2 s^2 fy^2) * exp(-2 pi^2 s^2 fx^2). It is real, so each frequency's
    real and imaginary parts take the same factor. The packing: every row holds, after its
    first number, the real and imaginary parts of the row's frequencies 1 .. (w-1)/2 in turn
    (and, for an even width, its middle frequency's real part last); the first column (and,
    for an even width, the last) is itself packed so down the rows. Built in about 0.3 ms a
    seat's crop, so nothing is kept between crops."""
    k = np.float32(-2.0 * np.pi**2 * sigma_px**2)
    fy = np.fft.fftfreq(dft_h).astype(np.float32)
    fx = np.fft.rfftfreq(dft_w).astype(np.float32)  # 0 .. w/2
    blur = np.exp(k * fy * fy)[:, None] * np.exp(k * fx * fx)[None, :]
    gain = blur / (blur * blur + np.float32(nsr))
    packed = np.empty((dft_h, dft_w), np.float32)
    inner = (dft_w - 1) // 2  # the frequencies stored as (real, imaginary) pairs along a row
    packed[:, 1 : 2 * inner + 1 : 2] = gain[:, 1 : inner + 1]
    packed[:, 2 : 2 * inner + 2 : 2] = gain[:, 1 : inner + 1]

    def down(column: np.ndarray, factors: np.ndarray) -> None:
        pairs = (dft_h - 1) // 2
        column[0] = factors[0]
        column[1 : 2 * pairs + 1 : 2] = factors[1 : pairs + 1]
        column[2 : 2 * pairs + 2 : 2] = factors[1 : pairs + 1]
        if dft_h % 2 == 0:
            column[dft_h - 1] = factors[dft_h // 2]

    down(packed[:, 0], gain[:, 0])
    if dft_w % 2 == 0:
        down(packed[:, dft_w - 1], gain[:, dft_w // 2])
    return packed


def wiener(gray: np.ndarray, sigma_px: float, nsr: float) -> np.ndarray:
    """`gray` (uint8) with a Gaussian blur of `sigma_px` undone, up to `nsr`."""
    return Restorer(gray).view(sigma_px, nsr)


#: below this blur width (px, `blur_width_px`) a picture is sharp and the ladder is not tried:
#: a code that did not decode on it is covered or grazed, not soft. On the blind renderer's
#: showdown seats (its lattice_red and plaid_grey tables): sharp 0.95-1.1 (its noise, JPEG and dim light included), a Gaussian blur of
#: 1 px 1.3-1.5, of 1.5 px 1.75-1.95, of 2 px 2.25-2.5, a disc of 3 px 1.95-2.2. The station's
#: own synthetic 4K frames measure lower (sharp 0.86, Gaussian 1 px 1.15-1.19, 2 px 1.8-1.85,
#: a disc of 3 px 1.5-1.65): the picture's range and edges differ, so the width is a rough
#: gauge, good for telling sharp from soft and for which rung to try first.
SOFT_MIN_PX = 1.25


def blur_width_px(gray: np.ndarray) -> float:
    """How soft a picture is: the width (px) of the Gaussian that would make its steepest edges
    as shallow as they are. A step of height h blurred by a Gaussian of width s rises at most
    h / (s * sqrt(2 pi)) per pixel; h is the picture's range (2nd to 98th percentile: a code's
    black on a card's white), the slope its steepest edges' (99.5th percentile). A perfectly
    sharp step measures about 0.8 (the gradient is taken over three pixels)."""
    g = gray.astype(np.float32)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3) / 8.0
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3) / 8.0
    steepest = float(np.percentile(np.hypot(gx, gy), 99.5))
    dark, light = np.percentile(g, [2, 98])
    return float(light - dark) / (np.sqrt(2 * np.pi) * max(steepest, 1e-3))


def deblurred_views(gray: np.ndarray) -> Iterator[Callable[[], tuple[np.ndarray, float]]]:
    """Makers of restored views of `gray` along the ladder, each drawn only when called,
    each with its scale to the original (1.0: same pixels); none when the picture is sharp
    (`SOFT_MIN_PX`), which is measured when the first maker is asked for."""
    width = blur_width_px(gray)
    if width < SOFT_MIN_PX:
        return
    # the rungs nearest the blur measured first (a sharp picture measures about 0.8-1.0, the
    # lens's own softness and the gradient's three pixels: about 0.3 px of the width is not
    # the blur's)
    guess = width - 0.3
    restorer = Restorer(gray)
    for sigma_px, nsr in sorted(WIENER_LADDER, key=lambda rung: abs(rung[0] - guess)):
        yield lambda s=sigma_px, r=nsr: (restorer.view(s, r), 1.0)
