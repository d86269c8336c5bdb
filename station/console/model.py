"""The console's model: the tables it watches and what it reads of them.

What it shows comes only from each table's public view (`station.core.view.public_view`,
which already hides face-down and burn cards, PROCEDURE.md §4) and from the journal's output
records of rounds that are over (a `hand` record exists only once a round is validated).
The routes (`station.console.routes`) turn requests into calls on `Console`; login and the
lockout live in `station.console.auth`, the event streams in `station.console.streams`.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from station.camera_view import LATEST
from station.console.audit import AuditLog
from station.console.auth import LoginGuard, RefusalAudit
from station.console.decisions import decisions
from station.console.errors import ApiError
from station.console.panels import presentation, role_actions
from station.console.sessions import Sessions
from station.console.streams import Hub
from station.console.users import UserStore
from station.core.inputs import US
from station.core.view import PRIVATE_RECORDS, record_visible
from station.frames_kept import round_frames
from station.games.presentation import RecallError, Records
from station.live.table_station import TableStation
from station.metrics import CAMERA_FPS, RECOGNITION_LATENCY, REGISTRY, Registry

#: shoe link counters that mean a frame was lost or spoiled on the way
DROP_COUNTERS = ("bad_crc", "malformed", "truncated", "too_long", "gap", "duplicate", "noise_bytes",
                 "unknown_type")
#: a dealt round of a shoe: `<table>-S<shoe>-R<round>` (a game's own recall may know others)
ROUND_ID = re.compile(r"^[A-Za-z0-9_.\-]+-S\d+-R\d+$")
#: who the console is to `record_visible`: it shows a table to supervisors and dealers alike
CONSOLE_VIEWER = "dealer"
#: record types that belong to a round and may be recalled once it is over
RECALL_TYPES = ("round_open", "betting_closed", "hand", "settlement", "round_cancelled", "fault",
                "resumed", "warning")


@dataclass
class _Table:
    station: TableStation
    # (station time, frames counter) samples, for the shoe link's frames per second
    frames: deque[tuple[float, int]] = field(default_factory=lambda: deque(maxlen=4096))
    frames_lock: threading.Lock = field(default_factory=threading.Lock)
    ro: sqlite3.Connection | None = None
    ro_lock: threading.Lock = field(default_factory=threading.Lock)
    #: round id -> the validated hand or the cancel of a round that is over (they never change)
    outcomes: dict[str, dict[str, Any]] = field(default_factory=dict)


def _summary(items: list[str]) -> str:
    """A zone's reading without identities: how many cards, face down or up."""
    if not items:
        return "empty"
    down = sum(1 for x in items if x == "??")
    unreadable = sum(1 for x in items if x == "XX")
    cut = any(x == "CUT" for x in items)
    up = len(items) - down - unreadable - (1 if cut else 0)
    parts = [f"{down} face down"] if down else []
    if up:
        parts.append(f"{up} face up (shown once the table reveals it)")
    if unreadable:
        parts.append(f"{unreadable} unreadable")
    if cut:
        parts.append("cut card")
    return ", ".join(parts)


class Console:
    """Everything the routes share: the tables, users, sessions, audit log and metrics."""

    def __init__(self, stations: Mapping[str, TableStation] | Iterable[TableStation], *,
                 users: UserStore | str | Path, secret: str | bytes,
                 frames_dir: str | Path | None = None, audit_path: str | Path | None = None,
                 session_ttl: float = 8 * 3600, registry: Registry = REGISTRY,
                 secure_cookies: bool = False,
                 session_clock: Callable[[], float] | None = None,
                 ledgers: Mapping[str, str | None] | None = None) -> None:
        if isinstance(stations, Mapping):
            items = list(stations.items())
            for name, st in items:
                if name != st.settings.table:
                    raise ValueError(f"table {name!r} is given the station of table "
                                     f"{st.settings.table!r}: name each station by its own table")
        else:
            items = [(s.settings.table, s) for s in stations]
        if not items:
            raise ValueError("the console needs at least one table")
        self.tables: dict[str, _Table] = {name: _Table(st) for name, st in items}
        self.users = users if isinstance(users, UserStore) else UserStore(users)
        self.sessions = Sessions(secret, ttl_seconds=session_ttl,
                                 **({} if session_clock is None else {"clock": session_clock}))
        self.frames_dir = Path(frames_dir) if frames_dir is not None else None
        #: table -> the ledger its evidence packs read (a file or a postgresql:// URL, read
        #: only), as the station is configured (`StationConfig.evidence_ledger`); a table
        #: not named here has none, and its packs say the postings were not checked
        self.ledgers: dict[str, str | None] = dict(ledgers or {})
        if audit_path is None:
            # next to the first table's journal: the audit trail lives with the table's records
            first = items[0][1].journal.path
            audit_path = first.with_name("console_audit.sqlite")
        self.audit = AuditLog(audit_path)
        self.registry = registry
        self.own = Registry()  # the console's own counters
        self.secure_cookies = secure_cookies
        self.closing = threading.Event()
        self.hub = Hub()
        self.logins = LoginGuard()
        self.refusals = RefusalAudit(self.audit)
        #: table -> role -> what it may send to that table: the kernel's decisions and the
        #: table's own game's actions (never another table's game's)
        self.table_actions = {n: role_actions(self.game_of(n)) for n in self.tables}
        #: role -> what it may send at some table here (the session's list of its actions)
        self.role_actions = {r: frozenset().union(*(a.get(r, ()) for a in self.table_actions.values()))
                             for r in {r for a in self.table_actions.values() for r in a}}


    # ------------------------------------------------------------------ tables
    def table(self, name: str) -> _Table:
        t = self.tables.get(name)
        if t is None:
            raise ApiError(404, f"no table {name!r} here (tables: {', '.join(self.tables)})")
        return t

    def table_view(self, name: str, view: dict[str, Any] | None = None) -> dict[str, Any]:
        """The table's public view plus what the console adds: station time, device health,
        and the result of a round just settled. Adds nothing the public view hides."""
        t = self.table(name)
        st = t.station
        v = dict(view if view is not None else st.view)
        if not v:
            raise ApiError(503, f"table {name} has not started yet")
        now = st.now_us() / US
        v["now"] = round(now, 3)
        link = v.get("link") or {}
        counters = link.get("counters") or {}
        frames = int(counters.get("frames", 0))
        self._sample(t, v)
        with t.frames_lock:
            # frames per second over the last 10 s of station time, measured up to now (a
            # silent link reads 0, not the rate it last had)
            old = next(((ts, n) for ts, n in t.frames if ts >= now - 10), None)
        fps = None
        if old is not None:
            span = max(now - old[0], 1.0)
            fps = round(max(frames - old[1], 0) / span, 2)
        cam_fps = self.registry.find(CAMERA_FPS)
        lat = self.registry.find(RECOGNITION_LATENCY)
        camera = v.get("camera") or {}
        last_seen = camera.get("last_seen")
        v["health"] = {
            "shoe": {
                "up": bool(link.get("up")),
                "frames": frames,
                "frames_per_s": fps,
                "dropped": {k: int(counters.get(k, 0)) for k in DROP_COUNTERS},
                # the gate and LED the shoe reported, and what the station asked of it
                "gate": link.get("gate"),
                "led": link.get("led"),
                "gate_asked": link.get("gate_asked"),
                "led_asked": link.get("led_asked"),
                "device_faults": link.get("device_faults") or [],
                "last_frame_age_s": None if link.get("last_frame") is None
                else round(now - link["last_frame"], 2),
            },
            "camera": {
                "fitted": bool(camera.get("fitted")),
                "fps": cam_fps.get(table=name) if cam_fps is not None else None,  # type: ignore[attr-defined]
                "recognition_latency_ms": None if lat is None or lat.last(table=name) is None  # type: ignore[attr-defined]
                else round(lat.last(table=name) * 1000, 1),  # type: ignore[attr-defined]
                "last_seen_age_s": None if last_seen is None else round(now - last_seen, 2),
            },
        }
        # which decisions the table takes now, what they do, and why not the others
        v["decisions"] = decisions(v)
        v["faults"] = [self._explained(name, v, f) for f in v.get("faults") or []]
        r = v.get("round")
        hist = v.get("history") or []
        v["result"] = None
        v["panel"] = presentation(self.game_of(name)).panel
        if r and r.get("finished") and hist and hist[-1].get("round_id") == r.get("round_id"):
            v["result"] = hist[-1]
        elif r and r.get("finished") and r.get("round_id"):
            # a round the view's history does not hold (yet): the round's own record
            v["result"] = self._outcome(name, str(r["round_id"]))
        return v

    def _outcome(self, name: str, round_id: str) -> dict[str, Any] | None:
        """The validated hand (cards, results, dice) or the cancel of a round that is over."""
        t = self.table(name)
        got = t.outcomes.get(round_id)
        if got is None:
            rec = self.finished_rounds(name).get(round_id)
            if rec is None:
                return None
            if rec["type"] == "hand":
                extra = presentation(self.game_of(name)).outcome_fields
                got = {k: rec.get(k) for k in ("round_id", "cards", "results", *extra,
                                                "validated_by")}
            else:
                got = {"round_id": round_id, "cancelled": rec.get("reason")}
            t.outcomes[round_id] = got
            if len(t.outcomes) > 256:
                t.outcomes.pop(next(iter(t.outcomes)))
        return got

    def _explained(self, name: str, v: dict[str, Any], fault: dict[str, Any]) -> dict[str, Any]:
        """A fault as the floor reads it: for an order fault, which zone holds what and what
        the deal order expects there (from the shoe's count per position and, when the camera
        picture is here, the camera's count per zone: numbers of cards, never identities)."""
        f = dict(fault)
        if f.get("kind") != "order":
            return f
        expected = presentation(self.game_of(name)).dealt(v)
        if not expected:
            return f
        pic = LATEST.get(name)
        seen = ({z: sum(1 for x in items if x != "CUT") for z, items in pic.readings.items()}
                if pic is not None else self._zone_counts(name))
        wrong = [z for z in expected if z in seen and seen[z] != expected[z]]
        expect_text = ", ".join(f"{p} {n}" for p, n in expected.items())
        if wrong:
            parts = [f"{z} holds {seen[z]} card{'s' if seen[z] != 1 else ''}, the deal order puts "
                     f"{expected[z]} there" for z in wrong]
            f["explain"] = "; ".join(parts) + f" (expected now: {expect_text})"
        else:
            f["explain"] = f"Expected now by the deal order: {expect_text}"
        f["zones"] = wrong
        return f

    def _zone_counts(self, name: str) -> dict[str, int]:
        """How many cards the table core's camera readings put in each zone (counts only).

        The public view does not carry them yet; until it does, they are read from the core's
        zones (what the camera last reported), tolerating a read that races the core's thread
        (then: no counts)."""
        try:
            zones = self.tables[name].station.core.zones
            return {str(z): sum(1 for c in list(cs) if str(c) != "CUT") for z, cs in list(zones.items())}
        except Exception:  # noqa: BLE001 - a best-effort explanation, never an error
            return {}

    def camera(self, name: str) -> dict[str, Any]:
        """The camera's latest picture for this table, and what the viewer may know of each
        zone: identities only where the table's public view has revealed them."""
        t = self.table(name)
        view = t.station.view or {}
        if not (view.get("camera") or {}).get("fitted", True):
            return {"available": False, "reason": "no camera at this table (degraded mode)"}
        pic = LATEST.get(name)
        if pic is None:
            return {"available": False, "reason": "no picture from the camera yet"}
        pres = presentation(self.game_of(name))
        revealed = pres.shown(view)
        dealt = pres.dealt(view)
        zones = []
        for zone, polygon in pic.zones.items():
            items = list(pic.readings.get(zone, ()))
            shown = revealed.get(zone)
            if zone in pres.public_zones:  # read in public (0: a die not read, say)
                shown = [str(x) for x in items]
            zones.append({"name": zone, "polygon": [list(p) for p in polygon],
                          "count": sum(1 for x in items if x != "CUT"),
                          "expected": dealt.get(zone),
                          "shown": list(shown) if shown is not None else None,
                          "summary": _summary(items) if shown is None else ", ".join(shown)})
        return {"available": True, "age_s": round(pic.age_s(), 2), "width": pic.width,
                "height": pic.height, "zones": zones,
                "frame": f"/api/tables/{name}/camera.jpg",
                # e.g. "deck back not calibrated": said, never read through (docs/camera.md)
                "warning": pic.warning,
                # what the camera reports for the config's fixed exposure, gain, white balance, focus
                "controls": dict(pic.controls)}

    @staticmethod
    def _sample(t: _Table, v: dict[str, Any]) -> None:
        frames = int(((v.get("link") or {}).get("counters") or {}).get("frames", 0))
        with t.frames_lock:
            if not t.frames or t.frames[-1][0] != v["t"]:
                t.frames.append((v["t"], frames))
            while t.frames and t.frames[0][0] < v["t"] - 60:
                t.frames.popleft()

    def _sampler(self, name: str) -> None:
        """Sample the shoe link's frame counter on every view of the table, whether or not a
        console is watching, so that frames per second are there when someone looks."""
        t = self.tables[name]
        version = -1
        while not self.closing.is_set():
            v = t.station.wait_view(version, 0.5)
            if v and v.get("version", 0) > version:
                version = v["version"]
                self._sample(t, v)
                self.hub.wake(name)

    def start_samplers(self) -> None:
        for name in self.tables:
            threading.Thread(target=self._sampler, args=(name,), name=f"console-sample-{name}",
                             daemon=True).start()

    def all_views(self) -> list[dict[str, Any]]:
        return [self.table_view(n) for n in self.tables]

    # ------------------------------------------------------------------ the journal, read-only
    def _records(self, name: str, types: tuple[str, ...]) -> list[dict[str, Any]]:
        """Committed output records of these types, oldest first, through a read-only
        connection of our own (never the owner thread's, which may be mid-transaction)."""
        t = self.table(name)
        with t.ro_lock:
            if t.ro is None:
                path = t.station.journal.path.resolve()
                t.ro = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
                t.ro.execute("PRAGMA busy_timeout=5000")
            marks = ",".join("?" * len(types))
            rows = t.ro.execute(f"SELECT record FROM records WHERE type IN ({marks}) ORDER BY seq",
                                types).fetchall()
        return [json.loads(r) for (r,) in rows]

    def records(self, name: str, types: tuple[str, ...]) -> list[dict[str, Any]]:
        return self._records(name, types)

    def game_records(self, name: str) -> Records:
        """The journal reader a game's road or recall is given: only what the console may
        see (PROCEDURE.md §4, §7.10: nothing private reaches the console or the dealer), so
        a game asking for `private` records mid-deal gets none."""
        def read(types: tuple[str, ...]) -> list[dict[str, Any]]:
            asked = tuple(t for t in types if t not in PRIVATE_RECORDS)
            if not asked:
                return []
            return [r for r in self._records(name, asked) if record_visible(r, CONSOLE_VIEWER)]
        return read

    def game_of(self, name: str) -> str:
        return str(self.table(name).station.settings.game)

    def finished_rounds(self, name: str) -> dict[str, dict[str, Any]]:
        """round id (or game id) -> the record that ended it: the game's (a validated
        `hand`, say: its presentation's `finished_types`) or the kernel's `round_cancelled`."""
        types = tuple(dict.fromkeys((*presentation(self.game_of(name)).finished_types,
                                     "round_cancelled")))
        out: dict[str, dict[str, Any]] = {}
        for rec in self._records(name, types):
            out[rec.get("round_id") or rec["game_id"]] = rec
        return out

    def hands(self, name: str, shoe: int | None = None) -> list[dict[str, Any]]:
        return [h for h in self._records(name, ("hand",)) if shoe is None or h.get("shoe") == shoe]

    def recall(self, name: str, round_id: str) -> dict[str, Any]:
        """A round (or a game) that is over, as its game recalls it, with its faults,
        warnings, decisions and audit entries."""
        pres = presentation(self.game_of(name))
        try:
            own = pres.recall(self.game_records(name), name, round_id)
        except RecallError as e:
            raise ApiError(e.status, str(e)) from None
        if own is not None:
            recs = own.pop("records", [])
            return {**own, **_round_events(recs),
                    "audit": self.audit.entries(table=name, round_id=round_id),
                    **self._frames(name, round_id)}
        if not ROUND_ID.match(round_id) or not round_id.startswith(f"{name}-S"):
            raise ApiError(400, f"{round_id!r} is not a round id of table {name} "
                                f"(they look like {name}-S1-R7)")
        done = self.finished_rounds(name)
        if round_id not in done:
            raise ApiError(404, f"round {round_id} is not over (or never existed): only settled "
                                "or cancelled rounds can be recalled")
        recs = [r for r in self._records(name, RECALL_TYPES) if r.get("round_id") == round_id]
        hand = next((r for r in recs if r["type"] == "hand"), None)
        settlement = next((r for r in recs if r["type"] == "settlement"), None)
        cancelled = next((r for r in recs if r["type"] == "round_cancelled"), None)
        opened = next((r for r in recs if r["type"] == "round_open"), None)
        bets = (settlement or {}).get("bets") or (cancelled or {}).get("refunds") or []
        out: dict[str, Any] = {
            "table": name,
            "round_id": round_id,
            "shoe": opened.get("shoe") if opened else None,
            "round": opened.get("round") if opened else None,
            "opened_at": opened.get("t") if opened else None,
            "closes_at": opened.get("closes_at") if opened else None,
            "status": "settled" if hand else "cancelled",
            # a cancelled round's cards were never validated and may never have been shown:
            # they stay in the journal only
            "cards": hand["cards"] if hand else None,
            "results": hand["results"] if hand else None,
            "validated_by": hand.get("validated_by") if hand else None,
            "last_round": hand.get("last_round") if hand else None,
            "validated_at": hand.get("t") if hand else None,
            # what the game's hands carry beside cards and results (dice, say)
            **{k: hand.get(k) if hand else None for k in pres.outcome_fields},
            "cancelled": _cancelled(cancelled),
            "bets": bets,
            "totals": {"bets": len(bets), "staked": sum(b["amount"] for b in bets),
                       "deducted": sum(b["deducted"] for b in bets),
                       "returned": sum(b["returned"] for b in bets),
                       "house_net": sum(b["deducted"] - b["returned"] for b in bets)},
            **_round_events(recs),
            "audit": self.audit.entries(table=name, round_id=round_id),
            **self._frames(name, round_id),
        }
        return out

    def _frames(self, name: str, round_id: str) -> dict[str, Any]:
        """The frames the camera kept for the round at validation: `frames`, each with its
        name (the round's, or each deal's of a game) and where to get it; `frame`, the
        round's own one (or None)."""
        base = f"/api/tables/{name}/rounds/{round_id}"
        kept = self.round_frames(round_id)
        return {"frames": [{"name": p.stem, "url": f"{base}/frames/{p.stem}.png"} for p in kept],
                "frame": f"{base}/frame.png" if self.frame_path(round_id) else None}

    def round_frames(self, round_id: str) -> list[Path]:
        """Every frame kept for the round: its own `<round_id>.png` and each of its parts'
        (a game's deals, `<game id>-D<n>.png`)."""
        return round_frames(self.frames_dir, round_id)

    def frame_path(self, round_id: str, name: str | None = None) -> Path | None:
        """The frame `name` of the round (default: the round's own), when kept."""
        want = round_id if name is None else name
        return next((p for p in self.round_frames(round_id) if p.stem == want), None)

    def close(self) -> None:
        self.closing.set()
        for t in self.tables.values():
            with t.ro_lock:
                if t.ro is not None:
                    t.ro.close()
                    t.ro = None


def _cancelled(record: dict[str, Any] | None) -> dict[str, Any] | None:
    """A round's (or a game's) cancellation as its detail shows it."""
    if not record:
        return None
    return {"reason": record.get("reason"), "user": record.get("user"), "t": record.get("t")}


def _round_events(recs: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The faults, warnings and supervisor decisions among a round's (or a game's) records."""
    return {
        "faults": [{"t": r["t"], "kind": r["kind"], "detail": r["detail"]}
                   for r in recs if r["type"] == "fault"],
        "warnings": [{"t": r["t"], "kind": r["kind"], "detail": r.get("detail")}
                     for r in recs if r["type"] == "warning"],
        "decisions": [{"t": r["t"], "action": "resume" if r["type"] == "resumed" else "cancel_round",
                       "user": r.get("user")}
                      for r in recs if r["type"] in ("resumed", "round_cancelled")],
    }

