"""Write one round's evidence pack: `evidence.json`, `index.html` and the round's frames in a
zip (for `station dispute` and the console's round recall alike)."""

from __future__ import annotations

import json
import sqlite3
import zipfile
from pathlib import Path
from typing import IO, Any

from station.dispute.gather import DisputeError, gather, ledger_checkpoint_of
from station.dispute.page import render


def write_pack(journal: Path, round_id: str, key: bytes, ledger: str | None,
               out: str | Path | IO[bytes], *, frames_dir: Path | None = None,
               audit_path: Path | None = None, key_source: str | None = None) -> dict[str, Any]:
    """Gather the round's evidence (reading the journal, `ledger` — a file or a
    postgresql:// URL —, the frames and the audit log only) and write the zip to `out`;
    returns the evidence. `key_source`: where the key came from, said in the proof."""
    store = None
    try:
        cp = None
        if ledger:
            from station.settlement.ledger import open_store
            from station.settlement.ledger.store import is_postgres_url

            if not is_postgres_url(ledger) and not Path(ledger).is_file():
                raise DisputeError(f"{ledger}: no such ledger")
            store = open_store(ledger, read_only=True)
            conn = sqlite3.connect(journal.resolve().as_uri() + "?mode=ro",
                                   uri=True)
            try:
                header = json.loads(conn.execute(
                    "SELECT value FROM meta WHERE key='header'").fetchone()[0])
                jid = conn.execute("SELECT value FROM meta WHERE key='journal_id'").fetchone()
            finally:
                conn.close()
            cp = ledger_checkpoint_of(store, header["table"], jid[0] if jid else None)
        evidence, frames = gather(journal, round_id, key=key, frames_dir=frames_dir,
                                  audit_path=audit_path, ledger_checkpoint=cp, ledger=store)
        if key_source is not None:
            evidence["proof"]["chain"]["key"] = key_source
    finally:
        if store is not None:
            store.close()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("evidence.json", json.dumps(evidence, ensure_ascii=False, indent=1))
        z.writestr("index.html", render(evidence, frames))
        for p in frames:
            z.write(p, f"frames/{p.name}")
    return evidence
