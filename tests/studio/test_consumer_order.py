"""The settlement consumer's order by outbox sequence (docs/studio.md, "Reconciliation"): after a
gap, the messages held come back each on its own delay and in any order, mixed with newer ones;
the one the ledger waits for is applied in the round it comes in, whatever came before it."""

from __future__ import annotations

from station.settlement.bus import OUTBOX_SEQ_HEADER, BusConsumer, _Item
from station.settlement.core import SettlementCore


def item(table: str, seq: int) -> _Item:
    return _Item(table, b"{}", None, {OUTBOX_SEQ_HEADER: str(seq)}, 1000 + seq)


def test_the_message_a_table_waits_for_is_taken_though_later_ones_came_first(tmp_path):
    with SettlementCore(tmp_path / "ledger.sqlite") as core:
        consumer = BusConsumer(core, "nats://127.0.0.1:1", tables=["T", "U"])
        consumer._next_seq.update({"T": 25, "U": 3})
        # a round as the bus gave it: T's 27 and 26 redelivered before the 25 it waits for,
        # a repeat (24), and 29 behind a gap (28 missing)
        round_ = [item("T", 27), item("U", 3), item("T", 26), item("T", 25), item("T", 29),
                  item("U", 4), item("T", 24)]
        take, wait = consumer._in_order(round_)
        assert [(i.table, i.outbox_seq) for i in take if i.table == "T"] == [
            ("T", 24), ("T", 25), ("T", 26), ("T", 27)]
        assert [(i.table, i.outbox_seq) for i in take if i.table == "U"] == [("U", 3), ("U", 4)]
        assert [(i.table, i.outbox_seq) for i in wait] == [("T", 29)]
        assert consumer.gaps == [("T", 28, 29)]
