"""Settlement reachable in its mode: the embedded ledger opens (read-only) and SQLite finds it
whole; the remote service answers its health check and the shared secret is set; the studio
bus accepts a connection and has JetStream."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from station.doctor.disk import existing_parent
from station.doctor.result import Finding, failed, passed


def check_settlement(cfg: Any, *, timeout_s: float = 5.0) -> Finding:
    mode = cfg.settlement.mode
    if mode == "embedded":
        return _embedded(cfg.ledger_path)
    if mode == "remote":
        return _remote(cfg.settlement.url, cfg.settlement.secret_env, timeout_s)
    return _bus(cfg.settlement.url, timeout_s)


def _embedded(path: Path) -> Finding:
    if not path.exists():
        where = existing_parent(path.parent)
        if not os.access(where, os.W_OK):
            return failed("settlement", f"embedded: no ledger yet and {where} is not writable",
                          "give the station's user the ledger's directory", mode="embedded")
        return passed("settlement", f"embedded: no ledger yet, made at {path} at the first start",
                      mode="embedded", ledger=str(path), exists=False)
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            check = conn.execute("PRAGMA quick_check").fetchone()[0]
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        finally:
            conn.close()
    except sqlite3.Error as e:
        return failed("settlement", f"embedded: the ledger {path} does not open: {e}",
                      "restore the ledger from its backup", mode="embedded", ledger=str(path))
    if check != "ok":
        return failed("settlement", f"embedded: SQLite finds the ledger {path} damaged: {check}",
                      "restore the ledger from its backup", mode="embedded", ledger=str(path))
    return passed("settlement", f"embedded: ledger {path} opens, quick_check ok, {len(tables)} tables",
                  mode="embedded", ledger=str(path), exists=True)


def _remote(url: str, secret_env: str, timeout_s: float) -> Finding:
    import httpx

    health = url.rstrip("/") + "/v1/health"
    try:
        r = httpx.get(health, timeout=timeout_s)
    except httpx.HTTPError as e:
        return failed("settlement", f"remote: {health} does not answer: {e}",
                      "start the settlement service (`station settlement serve`) or fix "
                      "settlement.url; check the network to it", mode="remote", url=url)
    if r.status_code != 200:
        return failed("settlement", f"remote: {health} answered {r.status_code}",
                      "settlement.url must be the service's base URL", mode="remote", url=url)
    if not os.environ.get(secret_env):
        return failed("settlement", f"remote: {url} answers, but {secret_env} is not set here",
                      f"set {secret_env} to the service's shared secret in the station's "
                      "environment (the systemd unit's EnvironmentFile)", mode="remote", url=url)
    return passed("settlement", f"remote: {health} answers ok; {secret_env} is set",
                  mode="remote", url=url)


def _bus(url: str, timeout_s: float) -> Finding:
    import asyncio

    async def probe() -> dict[str, Any]:
        import nats

        async def quiet(exc: Exception) -> None:
            return None

        nc = await nats.connect(url, connect_timeout=timeout_s, max_reconnect_attempts=0,
                                allow_reconnect=False, error_cb=quiet)
        try:
            info = await nc.jetstream().account_info()
            return {"server": nc.connected_url.netloc if nc.connected_url else url,
                    "streams": info.streams}
        finally:
            await nc.close()

    try:
        got = asyncio.run(asyncio.wait_for(probe(), timeout_s * 2))
    except Exception as e:  # noqa: BLE001 - whatever the client raises, the bus is not there
        return failed("settlement", f"bus: {url} is not reachable: {type(e).__name__}: {e}",
                      "start nats-server with JetStream (-js) or fix settlement.url; check the "
                      "network to the studio bus", mode="bus", url=url)
    return passed("settlement", f"bus: {url} answers, JetStream on ({got['streams']} streams)",
                  mode="bus", url=url)
