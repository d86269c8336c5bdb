"""The shoe: its port opens, it answers the DS status exchange (SHOE_PROTOCOL.md §5), and the
link's error counters after a few seconds of listening.

The doctor is not the station: it acknowledges only the shoe's HELLO (a boot announcement,
which a station that starts later does without: §4, "A station that starts without having
seen HELLO"). A card or any other event the shoe sends meanwhile is left unacknowledged, so
the shoe keeps it and resends it to the station."""

from __future__ import annotations

import threading
import time
from typing import Any

from station.doctor.result import Finding, failed, passed

#: counters of input the link dropped; a few bad CRCs are normal on a long cable (the
#: protocol resends), more than this share of the frames is a cable or a baud rate to fix
DROP_COUNTERS = ("bad_crc", "too_long", "malformed", "unknown_type", "truncated")
MAX_DROPPED_SHARE = 0.05
MAX_DROPPED_FEW = 2


def check_shoe(url: str, *, baudrate: int = 115200, listen_s: float = 3.0,
               answer_timeout_s: float = 4.0) -> Finding:
    from firmware_bridge.shoe.driver import ShoeCommandTimeout, ShoeDriver, ShoeLinkError
    from firmware_bridge.shoe.events import Hello

    if not url:
        return failed("shoe", "no shoe.url in the table's configuration",
                      "set [shoe] url to the shoe's port (/dev/serial/by-id/…, socket://…)")
    hello: dict[str, Any] = {}
    held: list[str] = []
    lock = threading.Lock()
    driver: Any = None

    def on_event(ev: Any) -> None:
        with lock:
            if isinstance(ev, Hello):
                hello.update(model=ev.model, serial=ev.serial, firmware=ev.firmware,
                             boot_id=ev.boot_id)
                driver.recorded_up_to(ev.seq)
            elif ev.seq is not None:
                held.append(ev.event)

    driver = ShoeDriver(url, on_event, baudrate=baudrate, auto_ack=False,
                        initial_command_seq=None)
    try:
        driver.start()
    except ShoeLinkError as e:
        return failed("shoe", str(e),
                      "plug the shoe's cable in; check the path (/dev/serial/by-id/…) and that "
                      "the station's user is in the dialout group", url=url)
    try:
        started = time.monotonic()
        try:
            reply = driver.status(timeout=answer_timeout_s)
        except ShoeCommandTimeout as e:
            counters = driver.counters
            heard = counters.get("frames", 0) or counters.get("bytes_in", 0)
            why = (f"the port opened but the shoe did not answer STATUS within "
                   f"{answer_timeout_s:g} s ({counters.get('bytes_in', 0)} bytes heard, "
                   f"{counters.get('frames', 0)} valid frames)")
            action = ("the bytes heard are not DS frames: check shoe.baudrate (115200 8N1) and "
                      "the cable" if heard else
                      "switch the shoe on; check that this port is the shoe's (not another "
                      "device's) and the cable")
            return failed("shoe", why, action, url=url, error=str(e), counters=counters)
        # listen on for the rest of `listen_s`: heartbeats, resends, dropped frames
        rest = listen_s - (time.monotonic() - started)
        if rest > 0:
            time.sleep(rest)
        counters = driver.counters
        link_up = driver.link_up
    finally:
        driver.stop()
    dropped = {k: counters.get(k, 0) for k in DROP_COUNTERS if counters.get(k, 0)}
    frames = counters.get("frames", 0)
    n_dropped = sum(dropped.values())
    data = {"url": url, "gate": reply.gate, "cards_out": reply.cards_out, "led": reply.led,
            "shoe": hello or None, "counters": counters, "held_for_station": held}
    who = (f"{hello.get('model')} {hello.get('serial')} firmware {hello.get('firmware')}, "
           if hello else "")
    seen = (f"{who}answered STATUS: gate {reply.gate}, {reply.cards_out} cards out, LED "
            f"{reply.led}; {frames} frames in {listen_s:g} s, dropped "
            + (", ".join(f"{k} {v}" for k, v in dropped.items()) if dropped else "none")
            + (f", resends asked {counters.get('resends_sent', 0)}"
               f", command retries {counters.get('command_retries', 0)}"))
    if held:
        seen += f"; left for the station: {', '.join(held)}"
    if reply.kind != "STATUS":
        return failed("shoe", f"the shoe answered STATUS with {reply.kind} ({reply.reason})",
                      "the shoe's firmware does not speak DS protocol 1's STATUS: update it",
                      **data)
    if not link_up:
        return failed("shoe", seen + "; the link went down while listening",
                      "check the cable and the shoe's power; run `station shoe listen URL`",
                      **data)
    if n_dropped > max(MAX_DROPPED_FEW, MAX_DROPPED_SHARE * frames):
        return failed("shoe", seen, "too many frames dropped: check the cable (length, "
                      "shielding), the adapter and shoe.baudrate", **data)
    return passed("shoe", seen, **data)
