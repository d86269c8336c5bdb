"""What the station knows of the shoe as a device: the link, its boot, its faults, and the
gate and LED the table drives (SHOE_PROTOCOL.md §4–§6)."""

from __future__ import annotations

from dataclasses import dataclass, field

from firmware_bridge.shoe.stream import ShoeStream


@dataclass(slots=True)
class ShoeLink:
    stream: ShoeStream = field(default_factory=ShoeStream)
    #: a valid frame came within the link timeout
    up: bool = True
    last_valid_us: int | None = None
    #: the boot id of the shoe's last HELLO
    boot_id: str | None = None
    #: FAULT codes the shoe reports and has not cleared
    device_faults: set[str] = field(default_factory=set)
    #: LOAD arrived while no shoe was started: it counts for the next new_shoe
    pending_load: bool = False
    #: what the station last commanded: LOCK/UNLOCK, and the LED colour
    gate: str | None = None
    led: str | None = None

    def drive(self, cards_due: bool, paused: bool, betting: bool) -> list[tuple[str, ...]]:
        """Gate and LED for the table's state: commands to send when they change.
        The gate is locked whenever no card is due (SHOE_PROTOCOL.md §6)."""
        gate = "UNLOCK" if cards_due and not paused else "LOCK"
        led = ("RED" if paused else "AMBER" if betting else "GREEN" if cards_due else "OFF")
        out: list[tuple[str, ...]] = []
        if gate != self.gate:
            self.gate = gate
            out.append((gate,))
        if led != self.led:
            self.led = led
            out.append(("LED", led))
        return out
