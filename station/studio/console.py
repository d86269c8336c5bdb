"""The studio console: one page listing every table of the studio, fed from the bus.

`StudioView` follows ``studio.state.*`` (the stream keeps each table's latest state, so a
console started late sees every table at once) and ``studio.alarm.*`` (what settlement
refused). `make_studio_app(view)` serves the page (``/``), the tables as JSON
(``/api/tables``) and a table's own page (``/tables/<name>``: its station's console when the
table published one as ``console_url``, else its last state). The page raises an alarm when
any table pauses. It is a read-only view: supervisor decisions still go to the table's own
station console, with its own login.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import threading
import time
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from station.settlement.bus import (
    ALARM_PREFIX,
    STATE_PREFIX,
    _connect,
    _LoopThread,
    ensure_streams,
)

#: how many of settlement's latest refusals the page keeps
MAX_ALARMS = 50


class StudioView:
    """The studio's tables as the bus tells them, kept current by a thread of its own."""

    def __init__(self, bus_url: str, ledger: Any = None, *, settlement_every_s: float = 2.0) -> None:
        self.bus_url = bus_url
        self.tables: dict[str, dict[str, Any]] = {}
        self.alarms: list[dict[str, Any]] = []
        self.connected = False
        #: with the studio ledger's store: how far settlement is (station/studio/status.py)
        self.settlement: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._loop = _LoopThread("studio-view")
        self._task = asyncio.run_coroutine_threadsafe(self._follow(), self._loop.loop)
        self._closed = threading.Event()
        if ledger is not None:
            threading.Thread(target=self._follow_settlement, args=(ledger, settlement_every_s),
                             name="studio-settlement", daemon=True).start()

    def _follow_settlement(self, store: Any, every_s: float) -> None:
        from station.studio.status import publish_metrics, status

        while not self._closed.is_set():
            try:
                report = status(store, self.bus_url)
                publish_metrics(report)
            except Exception as exc:  # noqa: BLE001 - the ledger may be away; the page says so
                report = {"error": repr(exc)[:300]}
            with self._lock:
                self.settlement = report
            self._closed.wait(every_s)

    async def _follow(self) -> None:
        from nats.js import api

        while True:
            nc = None
            try:
                nc = await _connect(self.bus_url, "studio-console")
                js = nc.jetstream()
                await ensure_streams(js)

                async def on_state(msg: Any) -> None:
                    with contextlib.suppress(ValueError, TypeError):
                        state = json.loads(msg.data)
                        table = msg.subject[len(STATE_PREFIX):]
                        with self._lock:
                            self.tables[table] = dict(state, table=table)

                async def on_alarm(msg: Any) -> None:
                    with contextlib.suppress(ValueError, TypeError):
                        with self._lock:
                            self.alarms = (self.alarms + [json.loads(msg.data)])[-MAX_ALARMS:]

                await js.subscribe(STATE_PREFIX + "*", cb=on_state, ordered_consumer=True,
                                   deliver_policy=api.DeliverPolicy.LAST_PER_SUBJECT)
                await js.subscribe(ALARM_PREFIX + "*", cb=on_alarm, ordered_consumer=True,
                                   deliver_policy=api.DeliverPolicy.ALL)
                self.connected = True
                while not nc.is_closed:
                    self.connected = nc.is_connected
                    await asyncio.sleep(0.5)
            except asyncio.CancelledError:
                if nc is not None:
                    with contextlib.suppress(Exception):
                        await nc.close()
                raise
            except Exception:  # noqa: BLE001 - the bus may be away; the page says so
                self.connected = False
                await asyncio.sleep(1.0)

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            tables = sorted(self.tables.values(), key=lambda s: s["table"])
            alarms = list(self.alarms)
            settlement = dict(self.settlement)
        now = time.time()
        progress = {r["table"]: r for r in settlement.get("tables", ())}
        for state in tables:
            state["age_s"] = round(now - state.get("t", now), 1)
            row = progress.get(state["table"])
            if row is not None:
                # what the ledger holds of the table, beside what the table has still to send
                state["ledger_applied_up_to"] = row["outbox_seq"]
                state["ledger_gaps"] = row["gaps"]
        consumers = (settlement.get("bus") or {}).get("consumers") or {}
        return {"bus_connected": self.connected, "tables": tables,
                "paused": [s["table"] for s in tables if s.get("state") == "paused"],
                "reservations_down": [_down_text(s) for s in tables
                                      if (s.get("reservations") or {}).get("down")],
                "alarms": alarms,
                "settlement": {"error": settlement.get("error"),
                               "lag": sum(c["pending"] for c in consumers.values()),
                               "unacked": sum(c["ack_pending"] for c in consumers.values()),
                               "consumers": len(consumers),
                               "owners": sorted({ls["owner"] for ls in settlement.get("leases", ())
                                                 if ls["expires_in_s"] > 0})}}

    def close(self) -> None:
        self._closed.set()
        self._loop.stop()


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Studio</title>
<style>
 body { font: 15px system-ui, sans-serif; margin: 1rem; background: #111; color: #eee; }
 #alarm { display: none; padding: .6rem 1rem; background: #b00; font-weight: bold; margin-bottom: 1rem; }
 #grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(16rem, 1fr)); gap: .8rem; }
 a.table { display: block; padding: .7rem; border-radius: .4rem; background: #222; color: inherit;
           text-decoration: none; border: 2px solid #333; }
 a.table.paused { border-color: #e33; background: #311; }
 .name { font-size: 1.2rem; font-weight: bold; } .muted { color: #999; }
 #refusals { margin-top: 1rem; color: #f88; }
</style></head><body>
<h1>Studio</h1>
<div id="alarm"></div>
<div id="resv" style="display:none; padding:.6rem 1rem; background:#a60; font-weight:bold; margin-bottom:1rem"></div>
<div id="bus" class="muted"></div>
<div id="grid"></div>
<div id="refusals"></div>
<script>
function esc(s) { return String(s ?? "").replace(/[&<>"]/g, c => ({"&":"&amp;","<":"&lt;",">":"&gt;","\\"":"&quot;"}[c])); }
function results(r) {
  if (!r) return "";
  if (r.payouts) return "pot " + esc(r.pot ?? "") + ": " + Object.entries(r.payouts).map(([a, v]) => esc(a) + " " + esc(v)).join(", ");
  return Object.entries(r).map(([p, v]) => p + " " + esc(v.outcome ?? "") + (v.multiplier ? " x" + v.multiplier : "")).join(", ");
}
async function refresh() {
  try {
    const data = await (await fetch("api/tables")).json();
    const st = data.settlement;
    document.getElementById("bus").textContent = (data.bus_connected ? "" : "bus not reachable: showing the last states ")
      + (st.error ? "ledger not reachable " : `settlement: ${st.consumers} durables, ${st.owners.length} processes, lag ${st.lag}, unacknowledged ${st.unacked}`);
    const down = document.getElementById("resv");
    down.style.display = data.reservations_down.length ? "block" : "none";
    down.textContent = data.reservations_down.length ? "RESERVATIONS DOWN (bets refused or on table credit): " + data.reservations_down.join(", ") : "";
    const alarm = document.getElementById("alarm");
    if (data.paused.length) { alarm.style.display = "block"; alarm.textContent = "PAUSED: " + data.paused.join(", "); }
    else { alarm.style.display = "none"; }
    document.getElementById("grid").innerHTML = data.tables.map(t => `
      <a class="table ${t.state === "paused" ? "paused" : ""}" href="tables/${encodeURIComponent(t.table)}">
        <div class="name">${esc(t.table)} <span class="muted">${esc(t.game)}</span></div>
        <div>${esc(t.state)} ${esc(t.round ?? "")}${t.game_round ? " " + esc(t.game_round.deal_phase ?? "") + " pot " + esc(t.game_round.pot ?? "") : ""}</div>
        <div class="muted">rounds ${esc(t.rounds_done)} &middot; shoe ${esc(t.devices?.shoe)} &middot; camera ${esc(t.devices?.camera)}
          &middot; to settle ${esc(t.pending_settlement)}${t.ledger_applied_up_to != null ? " &middot; ledger has up to #" + esc(t.ledger_applied_up_to) + (t.ledger_gaps ? " (" + esc(t.ledger_gaps) + " gaps re-sent)" : "") : ""}</div>
        <div>${t.faults && t.faults.length ? "faults: " + esc(t.faults.join(", ")) : ""}</div>
        <div class="muted">${results(t.last_results)}</div>
        <div class="muted">${esc(t.age_s)} s ago${t.players_url ? " &middot; player API " + esc(t.players_url) : ""}</div>
      </a>`).join("");
    document.getElementById("refusals").innerHTML = data.alarms.slice(-5).map(a =>
      `<div>settlement refused ${esc(a.table)} ${esc(a.key)}: ${esc(a.reason)}</div>`).join("");
  } catch (e) { document.getElementById("bus").textContent = "studio console not answering"; }
}
refresh(); setInterval(refresh, 1000);
</script></body></html>
"""


def _down_text(state: dict[str, Any]) -> str:
    """A table whose reservations go unanswered, as the banner names it: its policy and what
    it refused or took on its own credit meanwhile."""
    r = state["reservations"]
    if r.get("policy") == "credit":
        return (f"{state['table']} (on table credit: {r.get('on_credit_bets', 0)} bets,"
                f" {r.get('on_credit', 0)}; refused {r.get('refused_while_down', 0)})")
    return f"{state['table']} (refused {r.get('refused_while_down', 0)})"


def make_studio_app(view: StudioView) -> Starlette:
    async def page(request: Request) -> Response:
        return HTMLResponse(PAGE)

    async def tables(request: Request) -> Response:
        return JSONResponse(view.snapshot())

    async def table(request: Request) -> Response:
        name = request.path_params["name"]
        state = next((s for s in view.snapshot()["tables"] if s["table"] == name), None)
        if state is None:
            return HTMLResponse("<p>no such table on the bus</p>", status_code=404)
        url = state.get("console_url")
        if isinstance(url, str) and url.startswith(("http://", "https://")):
            return RedirectResponse(url)  # decisions are made on the table's own console
        body = html.escape(json.dumps(state, indent=1, sort_keys=True))
        return HTMLResponse(f"<!doctype html><title>{html.escape(name)}</title><h1>"
                            f"{html.escape(name)}</h1><p>a simulated table: no console of its "
                            f"own; its last state:</p><pre>{body}</pre><a href='../'>studio</a>")

    return Starlette(routes=[Route("/", page), Route("/api/tables", tables),
                             Route("/tables/{name}", table)])
