"""The journal: it opens (read-only: the doctor never writes it), belongs to this table, and
SQLite finds it whole; where the station has `station journal verify` (the journal's chain),
that verifies it too."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from station.doctor.disk import existing_parent
from station.doctor.result import Finding, failed, passed


def journal_has_verify() -> bool:
    """Whether this station's `station journal` has a `verify` action."""
    import argparse

    from station.commands import journal

    parser = argparse.ArgumentParser()
    journal.add_arguments(parser)
    for action in parser._subparsers._group_actions if parser._subparsers else ():  # noqa: SLF001
        if isinstance(action, argparse._SubParsersAction) and "verify" in action.choices:  # noqa: SLF001
            return True
    return False


def check_journal(path: Path, table: str, game: str, *, verify_timeout_s: float = 120.0,
                  key_env: str | None = None, key_file: Path | None = None) -> Finding:
    """`key_env`, `key_file`: where the station takes its signing key from (the config's
    `[journal]`); verify is given the same, and never a key it finds elsewhere."""
    path = Path(path)
    if not path.exists():
        where = existing_parent(path.parent)
        if not os.access(where, os.W_OK):
            return failed("journal", f"no journal yet, and {where} is not writable by this user",
                          "give the station's user storage.dir (or run the doctor as that user)",
                          path=str(path))
        return passed("journal", f"no journal yet: the station makes {path} at its first start "
                      f"({where} is writable)", path=str(path), exists=False)
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            check = conn.execute("PRAGMA quick_check").fetchone()[0]
            row = conn.execute("SELECT value FROM meta WHERE key='header'").fetchone()
            inputs = conn.execute("SELECT COUNT(*) FROM inputs").fetchone()[0]
            pending = conn.execute("SELECT COUNT(*) FROM settlement_outbox WHERE delivered_at IS NULL"
                                   ).fetchone()[0] if _has_column(conn, "settlement_outbox", "delivered_at") else None
        finally:
            conn.close()
    except sqlite3.Error as e:
        return failed("journal", f"{path} does not open as a journal: {e}",
                      "restore the journal from the station's backup; never start a table on a "
                      "journal that does not open", path=str(path))
    data: dict[str, Any] = {"path": str(path), "exists": True, "inputs": inputs, "quick_check": check,
                            "outbox_pending": pending}
    if check != "ok":
        return failed("journal", f"SQLite finds {path} damaged: {check}",
                      "restore the journal from the station's backup", **data)
    if row is None:
        return failed("journal", f"{path} has no table header: not a station journal",
                      "point storage.dir at the table's own directory", **data)
    header = json.loads(row[0])
    if header.get("table") != table or header.get("game") != game:
        return failed("journal", f"{path} is table {header.get('table')} ({header.get('game')}); "
                      f"the configuration says {table} ({game})",
                      "each table has its own storage.dir: fix [table] name or storage.dir", **data)
    text = f"{path}: table {table}, {inputs} inputs, SQLite quick_check ok"
    if pending:
        text += f", {pending} settlement messages not yet delivered"
    if journal_has_verify():
        # as at the station's start: the variable when it is set, else the key file
        key_args: list[str] = []
        if key_file is not None and not (key_env and os.environ.get(key_env)):
            key_args = ["--key-file", str(key_file)]
        elif key_env:
            key_args = ["--key-env", key_env]
        done = subprocess.run([sys.executable, "-m", "station", "journal", "verify", str(path),
                               *key_args], capture_output=True, text=True,
                              timeout=verify_timeout_s)
        said = (done.stdout.strip() or done.stderr.strip()).splitlines()
        data["verify"] = {"returncode": done.returncode, "said": said[-1:] if said else []}
        if done.returncode == 2 and any("no signing key" in line for line in said):
            # the doctor runs without the table's key in its environment: the chain cannot
            # be judged here (docs/operator.md, "Proving the journal")
            return passed("journal", text + "; `station journal verify` not run: no signing key "
                          "in this environment (the journal key check says what to set)",
                          **data)
        if done.returncode != 0:
            return failed("journal", text + f"; `station journal verify` failed: "
                          f"{said[-1] if said else done.returncode}",
                          "the journal's chain is broken: keep the file for an investigation and "
                          "restore from the backup", **data)
        text += "; `station journal verify`: ok"
    else:
        text += " (this station has no `station journal verify`: the chain is not checked)"
    return passed("journal", text, **data)


def _has_column(conn: sqlite3.Connection, table: str, column: str) -> bool:
    return any(r[1] == column for r in conn.execute(f"PRAGMA table_info({table})"))
