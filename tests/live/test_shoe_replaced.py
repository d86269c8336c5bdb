"""A shoe replaced (or power-cycled) between rounds gets its gate locked by the station before
a card can leave it, and the console shows the gate the shoe itself reports.

The station drives the gate by what it last asked for; a shoe that boots again knows nothing
of that and comes up with its gate open. Every HELLO (and every reconnect) makes the station
say the gate and the LED again, first, then ask STATUS; the console's gate is the shoe's
answer. Real station, the shoe simulator on a pty.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware_bridge.shoe.simulator import ShoeRefused, ShoeSimulator
from station.live.config import load_config
from station.live.journal_key import make_key_file
from tests.live.table_config import table_config_for_test
from tests.waiting import wait_for

ROOT = Path(__file__).parents[2]
CONFIG = ROOT / "config" / "table_no_camera.toml"


def _until(cond, what: str, timeout_s: float = 20.0):
    return wait_for(cond, timeout_s, what)


def _draw(shoe: ShoeSimulator) -> str:
    return _until(lambda: _try_draw(shoe), "the gate to open for a due card")


def _try_draw(shoe: ShoeSimulator) -> str | None:
    try:
        return shoe.draw()
    except ShoeRefused:
        return None


@pytest.mark.slow
def test_a_rebooted_shoe_gets_its_gate_locked_before_a_card_leaves_it(tmp_path) -> None:
    from station.runtime import start_runtime

    with ShoeSimulator(cut_at=None, seed=11) as shoe:
        cfg = load_config(table_config_for_test(CONFIG, tmp_path, shoe.serve_pty()))
        cfg.signing_key_file = make_key_file(tmp_path / "keys" / "PD-02.key")
        rt = start_runtime(cfg, with_console=False, with_bet_api=False)
        try:
            st = rt.station
            _until(lambda: st.core.link.boot_id == shoe.boot_id, "the station to take HELLO")
            st.submit("dealer", "new_shoe")
            st.submit("supervisor", "confirm_shuffle", "sup1")
            shoe.load()
            first = _draw(shoe)
            for _ in range(min(10, {"A": 1, "T": 10, "J": 10, "Q": 10, "K": 10}.get(first[0]) or int(first[0]))):
                _draw(shoe)
            _until(lambda: st.view.get("phase") == "between_rounds", "the burns to be taken")
            _until(lambda: shoe.gate_locked, "the gate to lock between rounds")
            _until(lambda: st.view["link"]["gate"] == "LOCKED", "the shoe to report its gate")
            out_before = len([r for r in st.journal.records_of_type("fault")])

            old_boot = shoe.boot_id
            shoe.reboot()  # a replaced shoe: it boots with its gate open
            assert shoe.boot_id != old_boot
            _until(lambda: shoe.gate_locked, "the station to lock the new shoe's gate", 10)
            with pytest.raises(ShoeRefused):
                shoe.draw()
            _until(lambda: st.view["link"]["gate"] == "LOCKED"
                   and st.core.link.boot_id == shoe.boot_id,
                   "the console to show the gate the new shoe reports")
            faults = st.journal.records_of_type("fault")[out_before:]
            assert [f["kind"] for f in faults] == ["shoe_rebooted"]
            # between rounds a reboot is resumed; the gate stays locked until cards are due
            st.submit("supervisor", "resume", "sup1")
            _until(lambda: not st.view.get("paused"), "the resume")
            assert shoe.gate_locked
            assert _try_draw(shoe) is None
            assert not [f for f in st.journal.records_of_type("fault") if f["kind"] == "early_card"]

            # the cable pulled and another shoe's state on the line when it comes back (no
            # HELLO reaches the station): the port says the gate again on its reconnect
            resent = rt.port.counters["gate_resent"]
            shoe.unplug(0.5)
            shoe.gate_locked = False
            _until(lambda: rt.port.counters["gate_resent"] > resent, "the port to reconnect")
            _until(lambda: shoe.gate_locked, "the gate said again after the reconnect", 10)
            assert _try_draw(shoe) is None
        finally:
            rt.stop()


@pytest.mark.slow
def test_a_station_that_never_saw_hello_takes_the_next_boot_after_its_restart(tmp_path) -> None:
    """The station started after the shoe had booted (its HELLO gone before the port was
    opened: pyserial empties the input on open), so it joined mid-stream and never learnt a
    boot id. It is stopped; the shoe is power-cycled; the station starts again on its journal.
    The new boot's HELLO must be taken as a boot, not as a retransmission of the old stream:
    before, every frame of the new boot was a "duplicate" of the old one, the shoe never got
    an ACK it could use, filled its buffer and stopped answering LOCK and STATUS (the
    restarted demo that waited for "the shoe to be ready" on a loaded machine)."""
    from station.runtime import start_runtime

    key = make_key_file(tmp_path / "keys" / "PD-02.key")
    with ShoeSimulator(cut_at=None, seed=12, resume_seq=40) as shoe:  # booted long ago
        cfg = load_config(table_config_for_test(CONFIG, tmp_path, shoe.serve_pty()))
        cfg.signing_key_file = key
        rt = start_runtime(cfg, with_console=False, with_bet_api=False)
        try:
            st = rt.station
            st.submit("dealer", "new_shoe")
            st.submit("supervisor", "confirm_shuffle", "sup1")
            shoe.load()
            _until(lambda: st.view.get("phase") == "ready", "the shoe's LOAD")
            _until(lambda: shoe.unacked == 0, "the station to acknowledge the old boot")
            assert st.core.link.boot_id is None  # no HELLO was ever heard
        finally:
            rt.stop()

    with ShoeSimulator(cut_at=None, seed=13) as shoe:  # power-cycled: HELLO, empty
        cfg = load_config(table_config_for_test(CONFIG, tmp_path, shoe.serve_pty()))
        cfg.signing_key_file = key
        rt = start_runtime(cfg, with_console=False, with_bet_api=False)
        try:
            st = rt.station
            _until(lambda: st.core.link.boot_id == shoe.boot_id, "the station to take the new boot")
            _until(lambda: shoe.unacked == 0, "the new boot's frames acknowledged")
            assert "shoe_rebooted" in [f["kind"] for f in st.journal.records_of_type("fault")]
            _until(lambda: shoe.gate_locked, "the station to lock the new shoe's gate")
            _until(lambda: st.view["link"]["gate"] == "LOCKED", "the new shoe to answer STATUS")
        finally:
            rt.stop()
