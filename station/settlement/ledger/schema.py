"""The ledger's tables, written once for both engines (embedded SQLite and PostgreSQL).

Double-entry books in integer minor units. Player wallets are accounts of kind ``wallet``,
shared by every table of a studio; each table has its own three system accounts:

- ``cashier``: where wallet balances come from (a `wallet` message posts the difference);
- ``in_play``: money deducted for the table's accepted bets, not yet settled or refunded;
- ``house``: what the table won or paid out.

A single table's ledger is a studio of one table whose name is the empty string, which is
what format 1 files become when opened (`migrate_sqlite_v1`).

Idempotency keys are unique per table: ``(table_id, key)`` for entries and bets,
``(table_id, round_id)`` for rounds, so two tables may use the same key text.

A wallet balance can never go negative: the schema refuses it, so a bug elsewhere fails loudly
instead of minting credit. No balance ever leaves ±`MAX_BALANCE` (the core refuses the message
first, `out_of_bounds`), so no sum of the books can overflow a 64-bit integer and SQLite never
turns a balance into a float (its CHECK says so too).
"""

from __future__ import annotations

from station.money import MAX_AMOUNT

#: the ledger format this code writes (SQLite: PRAGMA user_version; PostgreSQL: ledger_meta)
SCHEMA_VERSION = 2
SYSTEM_ACCOUNTS = ("cashier", "in_play", "house")
#: no account's balance (wallet or system) may go beyond ± this many minor units: a thousand
#: times the largest amount or wallet balance the station accepts (station/money.py), still
#: 9 times inside a signed 64-bit integer, so a balance plus any one message's movement fits
MAX_BALANCE = 1000 * MAX_AMOUNT

_TABLES = """
CREATE TABLE IF NOT EXISTS accounts (
    id       {ident},
    kind     TEXT NOT NULL CHECK (kind IN ('wallet', 'system')),
    table_id TEXT NOT NULL DEFAULT '',
    name     TEXT NOT NULL,
    balance  {int} NOT NULL DEFAULT 0,
    UNIQUE (kind, table_id, name),
    CHECK (kind != 'wallet' OR balance >= 0){int_check}
);
-- One row per applied message: the idempotency record and the journal entry in one.
CREATE TABLE IF NOT EXISTS entries (
    id         {ident},
    table_id   TEXT NOT NULL DEFAULT '',
    key        TEXT NOT NULL,
    kind       TEXT NOT NULL,
    round_id   TEXT,
    t          {real},
    applied_at {real} NOT NULL,
    digest     TEXT NOT NULL,  -- sha256 of the message, to catch a key reused for other content
    result     TEXT NOT NULL,
    UNIQUE (table_id, key)
);
-- Accepted bets; immutable once written.
CREATE TABLE IF NOT EXISTS bets (
    id         {ident},
    table_id   TEXT NOT NULL DEFAULT '',
    key        TEXT NOT NULL,
    round_id   TEXT NOT NULL,
    game       TEXT NOT NULL,
    account_id {int} NOT NULL REFERENCES accounts(id),
    spot       TEXT NOT NULL,
    amount     {int} NOT NULL CHECK (amount > 0),
    deducted   {int} NOT NULL CHECK (deducted > 0),
    -- 1: taken by a table's bet intake before it accepted the bet (docs/studio.md); a round
    -- closes such a bet from the table's own list and releases it if the table never listed it
    reserved   {int} NOT NULL DEFAULT 0,
    UNIQUE (table_id, key)
);
CREATE INDEX IF NOT EXISTS bets_by_round ON bets(table_id, round_id);
CREATE TABLE IF NOT EXISTS postings (
    id         {ident},
    entry_id   {int} NOT NULL REFERENCES entries(id),
    account_id {int} NOT NULL REFERENCES accounts(id),
    amount     {int} NOT NULL,
    bet_id     {int} REFERENCES bets(id)
);
-- Only a bet's acceptance postings name it (the wallet's deduction and in_play's share).
CREATE INDEX IF NOT EXISTS postings_by_bet ON postings(bet_id) WHERE bet_id IS NOT NULL;
-- How each bet ended. The primary key makes a second settlement or refund of a bet impossible.
-- The closing entry's postings are per account (one wallet credit per player per round, one
-- in_play debit, one house posting); the books check reconciles them with these rows.
CREATE TABLE IF NOT EXISTS bet_closures (
    bet_id   {int} PRIMARY KEY REFERENCES bets(id),
    entry_id {int} NOT NULL REFERENCES entries(id),
    outcome  TEXT NOT NULL CHECK (outcome IN ('settled', 'refunded', 'released')),
    returned {int} NOT NULL CHECK (returned >= 0)
);
CREATE TABLE IF NOT EXISTS rounds (
    table_id TEXT NOT NULL DEFAULT '',
    round_id TEXT NOT NULL,
    status   TEXT NOT NULL CHECK (status IN ('settled', 'cancelled')),
    entry_id {int} NOT NULL REFERENCES entries(id),
    reason   TEXT,
    PRIMARY KEY (table_id, round_id)
);
-- Messages the core refused (nothing of them posted): kept for the supervisor and the auditor,
-- so a message that can never apply is on record instead of holding up the table's queue.
-- A later delivery of the same key is tried again; if it applies, its entry says so.
CREATE TABLE IF NOT EXISTS refusals (
    id       {ident},
    table_id TEXT NOT NULL DEFAULT '',
    key      TEXT NOT NULL,
    kind     TEXT,
    reason   TEXT NOT NULL,
    detail   TEXT NOT NULL,
    body     TEXT NOT NULL,
    first_at {real} NOT NULL,
    last_at  {real} NOT NULL,
    attempts {int} NOT NULL DEFAULT 1,
    UNIQUE (table_id, key)
);
"""

#: PostgreSQL keeps the format version in a table (SQLite in PRAGMA user_version)
PG_META = "CREATE TABLE IF NOT EXISTS ledger_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);"


def schema_sql(dialect: str) -> str:
    if dialect == "sqlite":
        return _TABLES.format(
            ident="INTEGER PRIMARY KEY", int="INTEGER", real="REAL",
            int_check=",\n    CHECK (typeof(balance) = 'integer')",
        )
    return _TABLES.format(
        ident="BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY", int="BIGINT",
        real="DOUBLE PRECISION", int_check="",
    )


#: format 1 (one table, keys unique in the file, system accounts without a table) to format 2,
#: inside the caller's transaction: the old rows become table '' and keep their ids
MIGRATE_SQLITE_V1 = """
ALTER TABLE accounts RENAME TO v1_accounts;
ALTER TABLE entries RENAME TO v1_entries;
ALTER TABLE postings RENAME TO v1_postings;
ALTER TABLE bets RENAME TO v1_bets;
ALTER TABLE bet_closures RENAME TO v1_bet_closures;
ALTER TABLE rounds RENAME TO v1_rounds;
DROP INDEX IF EXISTS postings_by_bet;
DROP INDEX IF EXISTS bets_by_round;
{schema}
INSERT INTO accounts (id, kind, table_id, name, balance)
    SELECT id, kind, '', name, balance FROM v1_accounts;
INSERT INTO entries (id, table_id, key, kind, round_id, t, applied_at, digest, result)
    SELECT id, '', key, kind, round_id, t, applied_at, digest, result FROM v1_entries;
INSERT INTO bets (id, table_id, key, round_id, game, account_id, spot, amount, deducted)
    SELECT id, '', key, round_id, game, account_id, spot, amount, deducted FROM v1_bets;
INSERT INTO postings (id, entry_id, account_id, amount, bet_id)
    SELECT id, entry_id, account_id, amount, bet_id FROM v1_postings;
INSERT INTO bet_closures SELECT bet_id, entry_id, outcome, returned FROM v1_bet_closures;
INSERT INTO rounds (table_id, round_id, status, entry_id, reason)
    SELECT '', round_id, status, entry_id, reason FROM v1_rounds;
DROP TABLE v1_rounds;
DROP TABLE v1_bet_closures;
DROP TABLE v1_postings;
DROP TABLE v1_bets;
DROP TABLE v1_entries;
DROP TABLE v1_accounts;
"""
