"""Is the clock synchronised? What the OS says: systemd's `timedatectl show` where systemd
runs, else the kernel's own NTP state (adjtimex: the state a time daemon keeps it in). A
machine where neither can say gets "unknown", never a guess.

Every journaled input, every trace and every signed settlement request carries the station's
time; settlement refuses a signature more than its window (300 s) off."""

from __future__ import annotations

import ctypes
import ctypes.util
import subprocess
from typing import Any

from station.doctor.result import Finding, failed, passed, unknown

TIME_ERROR = 5  # adjtimex's answer when the clock is not synchronised
STA_UNSYNC = 0x0040


def from_timedatectl(text: str) -> bool | None:
    """`timedatectl show`'s NTPSynchronized=yes|no; None when it does not say."""
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "NTPSynchronized":
            return {"yes": True, "no": False}.get(value.strip())
    return None


class _Timex(ctypes.Structure):
    # struct timex of <sys/timex.h> on Linux (64-bit longs), with its padding
    _fields_ = [("modes", ctypes.c_uint), ("offset", ctypes.c_long), ("freq", ctypes.c_long),
                ("maxerror", ctypes.c_long), ("esterror", ctypes.c_long), ("status", ctypes.c_int),
                ("constant", ctypes.c_long), ("precision", ctypes.c_long),
                ("tolerance", ctypes.c_long), ("time_sec", ctypes.c_long),
                ("time_usec", ctypes.c_long), ("tick", ctypes.c_long), ("ppsfreq", ctypes.c_long),
                ("jitter", ctypes.c_long), ("shift", ctypes.c_int), ("stabil", ctypes.c_long),
                ("jitcnt", ctypes.c_long), ("calcnt", ctypes.c_long), ("errcnt", ctypes.c_long),
                ("stbcnt", ctypes.c_long), ("tai", ctypes.c_int), ("_pad", ctypes.c_int * 11)]


def kernel_state() -> dict[str, Any] | None:
    """The kernel's NTP state (adjtimex with no change), or None where it cannot be asked."""
    name = ctypes.util.find_library("c")
    if not name:
        return None
    try:
        libc = ctypes.CDLL(name, use_errno=True)
        t = _Timex()
        state = libc.adjtimex(ctypes.byref(t))
    except (OSError, AttributeError):
        return None
    if state < 0:
        return None
    return {"state": state, "unsync_flag": bool(t.status & STA_UNSYNC),
            "max_error_us": int(t.maxerror), "est_error_us": int(t.esterror)}


def check_clock(timedatectl: str = "timedatectl") -> Finding:
    try:
        done = subprocess.run([timedatectl, "show"], capture_output=True, text=True, timeout=5)
        said = from_timedatectl(done.stdout) if done.returncode == 0 else None
        why = (done.stderr.strip().splitlines() or ["no NTPSynchronized"])[0] if said is None else ""
    except (OSError, subprocess.TimeoutExpired) as e:
        said, why = None, f"{timedatectl}: {e}"
    if said is True:
        return passed("clock", "synchronised (timedatectl: NTPSynchronized=yes)", source="timedatectl")
    if said is False:
        return failed("clock", "not synchronised (timedatectl: NTPSynchronized=no)",
                      "enable a time service (systemd-timesyncd or chrony) with the studio's NTP "
                      "server: `timedatectl set-ntp true`", source="timedatectl")
    k = kernel_state()
    if k is None:
        return unknown("clock", f"the OS cannot say: timedatectl gives nothing ({why}) and the "
                       "kernel's NTP state cannot be read",
                       "check the time service by hand (`chronyc tracking`)", source=None)
    if k["state"] == TIME_ERROR or k["unsync_flag"]:
        return failed("clock", f"the kernel says not synchronised (adjtimex state {k['state']}, "
                      f"max error {k['max_error_us'] / 1e6:.1f} s); timedatectl: {why}",
                      "run a time service (chrony or systemd-timesyncd) against the studio's NTP "
                      "server; in a container, on the host", source="adjtimex", **k)
    return passed("clock", f"the kernel says synchronised (adjtimex state {k['state']}, estimated "
                  f"error {k['est_error_us'] / 1e3:.1f} ms)", source="adjtimex", **k)
