"""The table's journal signing key, as a live station finds it.

From the environment variable `[journal] signing_key_env` names (docs/operator.md, "Proving
the journal"): the key then lives outside `storage.dir`, and a copy of the station's files
alone cannot re-sign a journal. A station started without it (a demo, a bench) makes a key
file `journal_key` in `storage.dir`, private to the station's user, and says so at start:
its checkpoints are then as strong as that file's secrecy, and the ledger's copy of them
still catches a journal rewritten later.
"""

from __future__ import annotations

import logging
import os
import secrets
from pathlib import Path

from station.core import chain
from station.private_files import private_file

log = logging.getLogger("station.live")

KEY_FILE = "journal_key"


def table_key(env_name: str, data_dir: Path) -> bytes:
    key = chain.key_from_env(env_name)
    if key is not None:
        return key
    path = data_dir / KEY_FILE
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_hex(32) + "\n")
    private_file(path)
    log.warning("$%s is not set: the journal's checkpoints are signed with the key in %s; a "
                "table in service keeps its key outside storage.dir (docs/operator.md, "
                "\"Proving the journal\")", env_name, path)
    return chain.parse_key(path.read_bytes(), str(path))
