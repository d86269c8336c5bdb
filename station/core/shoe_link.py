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
    #: what the station last commanded: LOCK/UNLOCK, and the LED colour (None: nothing yet
    #: to this shoe, so the next drive says both)
    gate: str | None = None
    led: str | None = None
    #: what the shoe itself last reported in a STATUS reply (None: not since its HELLO):
    #: the gate the floor is shown, since a command may be lost or a shoe replaced
    reported_gate: str | None = None
    reported_led: str | None = None
    reported_cards_out: int | None = None

    def forget(self) -> None:
        """A shoe that (re)booted or was replaced knows nothing of what the station asked
        its predecessor: the next drive says the gate and the LED again, first."""
        self.gate = self.led = None
        self.reported_gate = self.reported_led = self.reported_cards_out = None

    def reported(self, gate: str | None, led: str | None, cards_out: int | None) -> None:
        self.reported_gate, self.reported_led, self.reported_cards_out = gate, led, cards_out

    def drive(self, cards_due: bool, paused: bool, betting: bool) -> list[tuple[str, ...]]:
        """Gate and LED for the table's state: commands to send when they change, then a
        STATUS so the shoe says what it did. The gate is locked whenever no card is due
        (SHOE_PROTOCOL.md §6)."""
        gate = "UNLOCK" if cards_due and not paused else "LOCK"
        led = ("RED" if paused else "AMBER" if betting else "GREEN" if cards_due else "OFF")
        out: list[tuple[str, ...]] = []
        if gate != self.gate:
            self.gate = gate
            out.append((gate,))
        if led != self.led:
            self.led = led
            out.append(("LED", led))
        if out:
            out.append(("STATUS",))
        return out
