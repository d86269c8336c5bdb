"""The journal's signing key: where the station will take it from at start, and nothing of
it lying beside the journal (docs/operator.md, "Proving the journal"). The key itself is
never shown."""

from __future__ import annotations

from typing import Any

from station.core.chain import ChainKeyError
from station.doctor.result import Finding, failed, passed
from station.live.config import key_file_refusal
from station.live.journal_key import find_key, stray_key_note

CHECK = "journal key"


def check_journal_key(cfg: Any) -> Finding:
    data = {"env": cfg.signing_key_env,
            "file": None if cfg.signing_key_file is None else str(cfg.signing_key_file)}
    where = (f"set ${cfg.signing_key_env} in the station's service environment (e.g. an "
             "EnvironmentFile readable by root only), or name a key file outside storage.dir, "
             "mode 600, in [journal] signing_key_file")
    refused = None if cfg.signing_key_file is None else key_file_refusal(cfg.signing_key_file,
                                                                          cfg.data_dir)
    if refused:
        return failed(CHECK, refused, where, **data)
    try:
        found = find_key(cfg.signing_key_env, cfg.signing_key_file, private=True)
    except ChainKeyError as e:
        return failed(CHECK, f"the journal's signing key cannot be used: {e}", where, **data)
    if found is None:
        return failed(CHECK, f"no journal signing key here (${cfg.signing_key_env} is not set and "
                      "no [journal] signing_key_file is named): the station will not start",
                      where + "; run the doctor in the station's environment", **data)
    stray = stray_key_note(cfg.data_dir)
    if stray:
        return failed(CHECK, stray, "move the file out of storage.dir (keep it with the key "
                      "custodian if checkpoints were signed with it)", source=found.source, **data)
    return passed(CHECK, f"checkpoints are signed with the key from {found.source}",
                  source=found.source, **data)
