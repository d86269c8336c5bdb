"""Which reserved bets their tables accepted.

A studio table's bet intake reserves a bet in the ledger before the table accepts it
(docs/studio.md, "Reservations"): the ledger books the bet as `reserved`. The table accepts it
only when it has journaled the ledger's answer, and then sends the same bet message through
its outbox. A reservation whose answer the table never journaled (the answer was lost, or the
table gave up waiting) is never sent again: the round's settlement list does not name it, and
the hand releases it to its wallet.

Two bets of a round may be alike line for line (the same player, spot and amount: the player
tried again after the first attempt went unanswered). The settlement list names bets by their
line, so the line alone cannot say which of the two the table accepted; this table does. Its
row for a bet is written when the bet message comes back through the outbox, and a hand
releases only reservations without one.

A separate table beside `bets` (whose rows are immutable once written), made on first use by
every settlement process, so a ledger of an older format gains it when it is next opened.
"""

from __future__ import annotations

from station.settlement.ledger.progress import create_tables
from station.settlement.ledger.store import Store, Tx

CONFIRMATIONS_SCHEMA = """
CREATE TABLE IF NOT EXISTS bet_confirmations (
    bet_id {int} PRIMARY KEY REFERENCES bets(id)
)
"""
#: the PostgreSQL advisory lock that serialises making the table (see `create_tables`)
_LOCK_ID = 7162537


def ensure_confirmations_table(store: Store) -> None:
    create_tables(store, CONFIRMATIONS_SCHEMA, _LOCK_ID)


def confirm(tx: Tx, table: str, key: str) -> None:
    """The table's outbox brought the reserved bet `key` again: the table accepted it."""
    tx.execute("INSERT INTO bet_confirmations (bet_id) SELECT id FROM bets"
               " WHERE table_id = ? AND key = ? AND reserved = 1 ON CONFLICT DO NOTHING",
               (table, key))


def released_confirmed(tx: Tx) -> list[str]:
    """Bets released as never accepted though their table had accepted them: a wrong record."""
    if not tx.has_table("bet_confirmations"):  # a ledger no process of this code has opened
        return []
    return [f"bet {key}" + (f" of table {table!r}" if table else "")
            + ": released as a reservation its table never accepted, but the table accepted it"
            for table, key in tx.execute(
                "SELECT b.table_id, b.key FROM bets b"
                " JOIN bet_confirmations f ON f.bet_id = b.id"
                " JOIN bet_closures c ON c.bet_id = b.id"
                " WHERE c.outcome = 'released' ORDER BY b.id")]
