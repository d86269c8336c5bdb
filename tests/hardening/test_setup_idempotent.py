"""`scripts/setup.sh` run again with nothing changed reaches no network: no apt, no pip.

The check is made with `apt-get`, `sudo` and `pip` shadowed on PATH by scripts that record
any call; setup's own pip runs as `.venv/bin/python -m pip`, so its "installing" step is
detected by what setup says (it logs every step it takes) and by the install stamp being
left as it was.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _shim(bin_dir: Path, name: str, log: Path) -> None:
    p = bin_dir / name
    p.write_text(f'#!/bin/sh\necho "{name} $*" >> "{log}"\nexit 1\n')
    p.chmod(0o755)


@pytest.mark.parametrize("browser", ["0", "1"])  # ./run.sh demo, and ./run.sh test
def test_a_second_setup_run_does_no_apt_and_no_pip(tmp_path: Path, browser: str) -> None:
    if not (REPO / ".venv" / ".station-installed").exists():
        pytest.skip("the project environment was not made by scripts/setup.sh")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.log"
    for name in ("apt-get", "sudo", "pip", "pip3"):
        _shim(bin_dir, name, log)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "STATION_SETUP_BROWSER": browser}
    stamp = REPO / ".venv" / ".station-installed"
    for run in (1, 2):
        before = stamp.stat().st_mtime_ns
        out = subprocess.run(["bash", "scripts/setup.sh"], cwd=REPO, env=env, capture_output=True,
                             text=True, timeout=600)
        assert out.returncode == 0, out.stderr
        assert "[setup] installing" not in out.stderr, (run, out.stderr)
        assert stamp.stat().st_mtime_ns == before
    assert not log.exists(), log.read_text()


def test_the_library_check_holds_under_pipefail() -> None:
    """The old check (`ldconfig -p | grep -q`) fails under pipefail once the list is long:
    grep exits at the first match and ldconfig dies of SIGPIPE. The new one never pipes."""
    text = (REPO / "scripts" / "setup.sh").read_text()
    assert "| grep -q" not in text
    script = ('set -euo pipefail; source <(sed -n "/^have_lib()/,/^}/p" scripts/setup.sh); '
              'have_lib "libc.so.6" && ! have_lib "libnothing-such.so.9"')
    out = subprocess.run(["bash", "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
