"""The table's journal signing key: where the station, `station journal verify` and
`station dispute` take it from, and where they never do.

The key signs the journal's checkpoints. Whoever can change the journal and read the key
can recompute the chain and sign it again, so the key never lives beside the journal
(docs/operator.md, "Proving the journal"). It comes from one of two places, each named on
purpose:

- the environment variable `[journal] signing_key_env` names (the service's environment,
  e.g. an `EnvironmentFile` readable by root only), which wins when set;
- the file `[journal] signing_key_file` names, outside `storage.dir`, readable by the
  station's user alone.

With neither the station does not start. A `journal_key` file in `storage.dir` (the key
earlier station versions made for themselves when the variable was unset) is never taken
by anything: it is only pointed out, so its owner moves it and names it.
"""

from __future__ import annotations

import logging
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from station.core import chain
from station.live.config import ConfigError, key_file_refusal

log = logging.getLogger("station.live")

#: the key file earlier station versions made in storage.dir; never read from there
KEY_FILE = "journal_key"


@dataclass(frozen=True)
class TableKey:
    key: bytes
    #: where it came from, for the log and for standard error (never the key itself)
    source: str


def key_from_file(path: Path, *, private: bool = False) -> bytes:
    """The key a file holds (e.g. 64 hex digits; the whitespace around it ignored).
    `private`: refuse a file any other user may read or write (the station's own key file)."""
    p = Path(path)
    try:
        st = p.stat()
        data = p.read_bytes()
    except FileNotFoundError:
        raise chain.ChainKeyError(f"{p}: no such key file (make one with `openssl rand -hex 32 "
                                  f"> {p}; chmod 600 {p}`)") from None
    except OSError as e:
        raise chain.ChainKeyError(f"{p}: the key file cannot be read ({e.strerror})") from None
    if not stat.S_ISREG(st.st_mode):
        raise chain.ChainKeyError(f"{p}: not a regular file")
    if private and st.st_mode & 0o077:
        raise chain.ChainKeyError(f"{p}: other users may read or change the journal's key "
                                  f"(mode {stat.S_IMODE(st.st_mode):o}): chmod 600 {p}")
    return chain.parse_key(data, str(p))


def find_key(env_name: str, key_file: Path | None, *, private: bool = False) -> TableKey | None:
    """The key from `$env_name` when it is set, else from `key_file` when given; None when
    neither is. A key that is there but unusable raises ChainKeyError."""
    key = chain.key_from_env(env_name)
    if key is not None:
        return TableKey(key, f"${env_name}")
    if key_file is not None:
        return TableKey(key_from_file(key_file, private=private), f"the key file {key_file}")
    return None


def stray_key_note(data_dir: Path) -> str | None:
    """What to say of a key file lying in storage.dir, if one does."""
    p = Path(data_dir) / KEY_FILE
    if not p.exists():
        return None
    return (f"{p} lies beside the journal and is not used: a key kept where the journal is "
            "proves nothing. If the table's checkpoints were signed with it, move it out of "
            "storage.dir (e.g. /etc/dealer-station/<table>.key, mode 600) and name it in "
            "[journal] signing_key_file (docs/operator.md, \"Proving the journal\")")


class NoTableKey(ConfigError):
    """The station has no signing key it may use: it does not start."""


def table_key(config: Any) -> TableKey:
    """The key a live station signs its checkpoints with (a `StationConfig`), or NoTableKey
    naming what to set."""
    data_dir = Path(config.data_dir)
    key_file = config.signing_key_file
    refused = None if key_file is None else key_file_refusal(key_file, data_dir)
    if refused:
        raise NoTableKey(refused)
    try:
        found = find_key(config.signing_key_env, key_file, private=True)
    except chain.ChainKeyError as e:
        raise NoTableKey(f"the journal's signing key: {e}") from None
    stray = stray_key_note(data_dir)
    if found is None:
        raise NoTableKey(
            f"no journal signing key: set ${config.signing_key_env} in the station's service "
            "environment, or name a key file outside storage.dir in [journal] "
            "signing_key_file; the station does not start a journal it cannot sign"
            + (f". {stray}" if stray else ""))
    if stray:
        log.warning("%s", stray)
    log.info("journal %s: checkpoints signed with the key from %s", config.journal_path,
             found.source)
    return found


def make_key_file(path: Path) -> Path:
    """A new random key in `path` (mode 600), unless one is there."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return p
    with os.fdopen(fd, "w") as f:
        f.write(secrets.token_hex(32) + "\n")
    return p


def demo_key_file(data_dir: Path) -> Path:
    """A demo's key file: named as a table in service names its own (`[journal]
    signing_key_file`), beside its storage.dir rather than in it (`<dir>.journal_key`), made
    at the demo's first start and kept, so a restarted demo signs on with the same key."""
    d = Path(data_dir).resolve()
    return make_key_file(d.with_name(d.name + ".journal_key"))
