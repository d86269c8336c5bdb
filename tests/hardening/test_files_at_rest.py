"""What the station keeps at rest is readable by the station's user only (docs/operator.md)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

from station.console.audit import AuditLog
from station.console.users import UserStore
from station.core.inputs import TraceHeader
from station.core.journal import Journal
from station.live.recording import ShoeTraceRecorder
from station.private_files import private_file

REPO = Path(__file__).resolve().parents[2]


def mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def test_journal_users_audit_and_traces_are_born_owner_only(tmp_path: Path) -> None:
    old = os.umask(0o022)  # a permissive umask: the files must not depend on it
    try:
        header = TraceHeader("PD-01", "pokdeng", True, {}, "")
        j = Journal(tmp_path / "data" / "journal.sqlite", header)
        j.close()
        users = UserStore(tmp_path / "data" / "users.sqlite")
        users.add("sup1", "supervisor", "a long password")
        audit = AuditLog(tmp_path / "data" / "audit.sqlite")
        audit.write(user="sup1", role="supervisor", action="login", outcome="login")
        rec = ShoeTraceRecorder(tmp_path / "traces", header)
        rec._rotate("S1", 0)
        rec.close()
        files = [p for p in (tmp_path / "data").iterdir()] + list((tmp_path / "traces").iterdir())
        assert any(p.name.endswith("-wal") for p in files)
        for p in files:
            assert mode(p) == 0o600, (p.name, oct(mode(p)))
        assert mode(tmp_path / "data") == 0o700 and mode(tmp_path / "traces") == 0o700
    finally:
        os.umask(old)


def test_a_file_left_readable_by_an_older_station_is_narrowed(tmp_path: Path) -> None:
    p = tmp_path / "ledger.sqlite"
    p.write_bytes(b"")
    os.chmod(p, 0o644)
    (tmp_path / "ledger.sqlite-wal").write_bytes(b"")
    os.chmod(tmp_path / "ledger.sqlite-wal", 0o664)
    private_file(p, sqlite=True)
    assert mode(p) == 0o600 and mode(tmp_path / "ledger.sqlite-wal") == 0o600


def test_the_station_command_writes_with_a_private_umask(tmp_path: Path) -> None:
    # every station command runs with umask 077: whatever it creates is the station user's alone
    code = ("import os, sys; from station.cli import main; rc = main(sys.argv[1:]);"
            "print(oct(os.umask(0)))")
    out = subprocess.run([sys.executable, "-c", code, "diagram"], capture_output=True, text=True,
                         cwd=REPO, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "0o77"
