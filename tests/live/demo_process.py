"""`station demo` as the README starts it: a child process whose console line is waited for,
whose login page must answer while it runs, and whose whole output comes back at its end."""

from __future__ import annotations

import re
import subprocess
import sys
import time
import urllib.request

CONSOLE_LINE_S = 60.0  # the demo prints its console's address once the table is up
RUN_S = 400.0  # the rounds asked for, on a loaded two-core machine


def run_demo(*args: str) -> tuple[int, str, bytes]:
    """Run `station demo ARGS`; returns its exit code, everything it printed, and the login
    page its console served while it ran (asked for with a 200 status)."""
    proc = subprocess.Popen([sys.executable, "-m", "station", "demo", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        console = None
        deadline = time.monotonic() + CONSOLE_LINE_S
        while console is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
            m = re.search(r"console:\s+(http://\S+)", line)
            if m:
                console = m.group(1)
        assert console, "".join(lines)
        with urllib.request.urlopen(console + "/login", timeout=10) as resp:
            assert resp.status == 200
            page = resp.read()
        out, _ = proc.communicate(timeout=RUN_S)
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, "".join(lines) + out, page
