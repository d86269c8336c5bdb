"""Studio tables: real stations, fed by a scripted table instead of devices and people.

Each `StudioTable` is a `TableStation` — the table kernel with its game's procedure, its own
SQLite journal and the settlement outbox inside it — fed the inputs of a session of its game
written in advance (station/studio/scripts.py: the shoe's DS frames, the camera's zones, the
dealer's and supervisor's actions, wallets, bets, players' actions). Its outbox goes to the
studio bus by a `DeliveryWorker` over `NatsTransport`, exactly as at a table PC, and its public
state (from the table's own view) to the studio console by a `StatePublisher`. A table whose
bus is away goes on dealing on its own journal and outbox, and catches up when it is back.

Time: the table runs on a virtual clock that stands at the table time of the input being fed,
so its timers (betting close, timeouts) fire where the session puts them however fast it is
fed; `pace_s` is the wall time a round takes. What the table did is in its journal, and the
journal re-applies to the same records (a station restarted on it carries on).

    python -m station.studio.tables --journal J --table T-01 --game G --rounds 20 \
        --pace 0.3 --bus nats://127.0.0.1:4222

runs one table as its own process (the drills) and prints a JSON line when it is done.

A table that reserves (`--reserve`, as `reserve = true` in a station's `[settlement]`) takes
its bets through the bet intake, which reserves each in the studio ledger over the bus and
journals the ledger's answer (a pot game: each ante, bet and buy-in its players' actions
draw); its players' wallets are the studio's (the session sets none: the studio's cage funds
them in the ledger), and tables given the same `--players` seat the same accounts, so one
wallet bets at several tables. A pot game's dealer or player whose action the ledger did not
answer (the bus away) tries it again until it does, as at a real table: the game cannot go on
without its antes.

A table restarted on its journal (the process killed, the table PC rebooted) carries on from
where its journal is: the inputs of its session the journal already holds are not fed again,
its clock resumes at the journal's last time, and its delivery worker sends what the outbox
still holds.

A table where players act (a pot game's) serves the player API as a lone table does
(station/live/player_api.py, on a port of its own, the platform's key `player_key`), and its
session's players play through it: each `player` line is a `POST /v1/players/actions` over
real HTTP, answered once the table has journaled it. The API's address is in the table's
state (`players_url`) for the studio console.
"""

from __future__ import annotations

import argparse
import json
import logging
import secrets
import sqlite3
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from station.core.inputs import US, Input, parse_input
from station.core.journal import Journal
from station.core.settings import TableSettings
from station.games import default_game
from station.live.config import check_reservable
from station.live.reservations import REFUSE, ReservationHealth
from station.live.table_station import TableStation
from station.settlement.bus import NatsTransport, Reserver, StatePublisher
from station.settlement.outbox import DeliveryWorker
from station.studio.scripts import Session, build_session
from station.studio.state import ROUND_CLOSED, TableState

log = logging.getLogger("station.studio.tables")

#: the studio console hears of a table at least this often while it deals, seconds
STATE_EVERY_S = 0.5
#: a pot game's action the studio ledger did not answer is tried again after this long
RETRY_UNANSWERED_S = 0.3


class StudioTable:
    def __init__(self, name: str, game: str, *, seed: int, rounds: int, pace_s: float,
                 bus_url: str, folder: Path, accounts: int = 8, journal_sync: str = "normal",
                 max_backoff: float = 1.0, session: Session | None = None,
                 transport: Any = None, player_key: str | None = None,
                 reserve: bool = False, reserve_timeout_s: float = 0.3,
                 players: str | None = None) -> None:
        self.name = name
        self.game = game
        self.rounds = rounds
        if reserve:
            check_reservable(game)
        self.session = session or build_session(game, name, seed=seed, rounds=rounds,
                                                accounts=accounts, players=players,
                                                shared_wallets=reserve)
        header = self.session.header
        settings = TableSettings().with_overrides(
            {"table": name, "game": game, "camera": header.get("camera", True),
             **header.get("settings", {})})
        # wall seconds per table second: a round takes about `pace_s`
        per_round = self.session.table_seconds / max(1, self.session.rounds)
        self.wall_per_table_s = pace_s / per_round if per_round > 0 else 0.0
        self.journal_path = Path(folder) / f"{name}.journal.sqlite"
        #: where the session stands on the journal (a restart carries on from there)
        self.resume = resume_point(self.journal_path, self.session.lines)
        # the table's time resumes where the journal left it (0 on a new journal)
        self._now_s = self.resume.t_s
        self.station = TableStation(settings, self.journal_path, clock=self._clock,
                                    journal_sync=journal_sync)
        #: with reserve: the studio ledger's reservations, and how often it did not answer
        self.reserver: Reserver | None = None
        self.unanswered = 0
        if reserve:
            self.reserver = Reserver(bus_url, name)
            self._reserve_timeout_s = reserve_timeout_s
            self.station.reserve_bet = self._reserve
            self.station.reservation_health = ReservationHealth(name, REFUSE)
        self.transport = transport if transport is not None else NatsTransport(
            bus_url, name, publish_timeout_s=2.0)
        self.errors: list[str] = []
        self.worker = DeliveryWorker(self.journal_path, self.transport, max_backoff=max_backoff,
                                     on_error=lambda exc, key: self._error(f"{key}: {exc}"))
        self.station.on_outbox = self.worker.wake
        self.state_bus = StatePublisher(bus_url, name) if bus_url else None
        #: the player API, served while the table runs (a table where players act)
        self.player_key = player_key or secrets.token_urlsafe(18)
        self.players_url: str | None = None
        self.player_actions = 0  # answered by the player API
        self._players: Any = None
        self._players_app: Any = None
        self._http: Any = None
        if self.station.core.proc.player_handler() is not None:
            from station.live.http import serve_app
            from station.live.player_api import make_player_app

            self._players_app = make_player_app(self.station, {self.player_key: "studio"})
            self._players = serve_app(self._players_app, "127.0.0.1", 0, name=f"players-{name}")
            self.players_url = self._players.url
        self._state = TableState(self.station, self.state_bus, pending=self.worker.pending,
                                 every_s=STATE_EVERY_S, players_url=self.players_url)
        self._state.rounds_done = self.resume.rounds_done
        self.finished = threading.Event()
        self.failed: BaseException | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._deal, name=f"table-{name}", daemon=True)

    def _clock(self) -> float:
        return self._now_s

    def _error(self, text: str) -> None:
        self.errors.append(text)
        del self.errors[:-50]

    def _reserve(self, request: dict[str, Any]) -> dict[str, Any]:
        """The bet intake's question to the studio ledger (docs/studio.md)."""
        assert self.reserver is not None
        try:
            answer = self.reserver.reserve(request, timeout_s=self._reserve_timeout_s)
        except Exception:
            self.unanswered += 1
            raise  # the station journals it as `unavailable`
        if answer.get("answer") == "unavailable":
            self.unanswered += 1
        return answer

    # -- running ------------------------------------------------------------------------

    def start(self) -> None:
        self.station.start()
        self.worker.start()
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    @property
    def rounds_done(self) -> int:
        return self._state.rounds_done

    def _deal(self) -> None:
        lines = self.session.lines
        # a restarted table paces the rest of its session from where it resumed
        start = time.monotonic() - self._now_s * self.wall_per_table_s
        try:
            for i in range(self.resume.next_line, len(lines)):
                if self._stop.is_set():
                    break
                inp = parse_input(lines[i], i + 2)
                if inp.kind == "end":
                    break
                due = start + inp.t_us / US * self.wall_per_table_s
                delay = due - time.monotonic()
                if delay > 0 and self._stop.wait(delay):
                    break
                self._now_s = max(self._now_s, inp.t_us / US)
                while not self._feed(inp) and not self._stop.wait(RETRY_UNANSWERED_S):
                    pass  # the ledger did not answer what the action draws: again
        except BaseException as exc:  # noqa: BLE001 - the summary says why the table stopped
            self.failed = exc
            log.exception("studio table %s stopped", self.name)
        finally:
            self.publish_state(closed=True)
            self.finished.set()

    def _feed(self, inp: Input) -> bool:
        """One input of the session, as its source gives it to the station: False when it
        is a pot game's action whose draws the studio ledger did not answer (to be tried
        again; a bet it did not answer is refused, and the bettor goes on)."""
        unanswered = self.unanswered
        if inp.kind == "player" and self.players_url is not None:
            self._play(inp.value)
        elif inp.kind == "bet" and self.reserver is not None:
            # the bet API's path: the intake reserves the bet before the table takes it
            self.station.place_bets([inp.value])
            return True
        else:
            self.station.submit(inp.kind, inp.value, inp.user, extra=inp.extra or None)
        return self.unanswered == unanswered

    def _play(self, action: dict[str, Any]) -> None:
        """A player's action through the player API, as the betting platform sends it."""
        import httpx

        if self._http is None:
            self._http = httpx.Client(base_url=self.players_url, timeout=30.0,
                                      headers={"Authorization": f"Bearer {self.player_key}"})
        r = self._http.post("/v1/players/actions", json=action)
        if r.status_code not in (200, 409):  # 409: the table refused it, as it may
            raise RuntimeError(f"player API: {action} answered {r.status_code} {r.text[:300]}")
        self.player_actions += 1

    # -- what the studio console sees ----------------------------------------------------

    def state(self) -> dict[str, Any]:
        return self._state.state()

    def publish_state(self, *, closed: bool = False) -> None:
        self._state.publish(closed=closed)

    # -- after the session ---------------------------------------------------------------

    def drain(self, timeout_s: float) -> bool:
        ok = self.worker.drain(timeout_s)
        self.publish_state(closed=True)
        return ok

    def outbox(self) -> list[dict[str, Any]]:
        return outbox_messages(self.journal_path)

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(10)
        if self._http is not None:
            self._http.close()
        if self._players is not None:
            from station.live.player_api import stop_player_app

            stop_player_app(self._players_app, self._players)
        self.station.stop()
        self.worker.stop()
        self.transport.close()
        if self.reserver is not None:
            self.reserver.close()
        if self.state_bus is not None:
            self.state_bus.close()


@dataclass(frozen=True)
class Resume:
    """Where a table's session stands on its journal."""

    next_line: int = 0  # the first line of the session the journal does not hold
    t_s: float = 0.0  # the table's time at the journal's last input, seconds
    rounds_done: int = 0


def resume_point(journal_path: Path, lines: list[dict[str, Any]]) -> Resume:
    """How far the journal at `journal_path` is through the session `lines`: each line the
    table took is an input of the journal, in the session's order, among inputs the table
    made itself (reservation answers, its timers) or a person gave again (an action the
    ledger did not answer, tried again). A pot game's action whose last try the ledger did
    not answer is given again (its answers are journaled just before it)."""
    if not journal_path.exists():
        return Resume()
    journal = Journal(journal_path)
    try:
        if journal.is_new:
            return Resume()
        n = 0
        want = _line_input(lines, n)
        last: Input | None = None  # the last line taken
        unanswered = False  # a reservation of the input coming was not answered
        again = False  # the last line's last try was not answered: to be given again
        for _seq, inp in journal.inputs():
            if inp.kind == "reservation_answer":
                unanswered = unanswered or inp.value.get("answer") == "unavailable"
                continue
            if want is not None and inp.kind == want.kind and inp.value == want.value:
                last, n = want, n + 1
                want = _line_input(lines, n)
                again = unanswered and last.kind != "bet"
            elif last is not None and inp.kind == last.kind and inp.value == last.value:
                again = unanswered  # a try again of the last line
            unanswered = False
        rounds = sum(1 for r in journal.iter_records() if r["type"] in ROUND_CLOSED)
        return Resume(n - 1 if again else n, journal.last_t_us() / US, rounds)
    finally:
        journal.close()


def _line_input(lines: list[dict[str, Any]], n: int) -> Input | None:
    if n >= len(lines):
        return None
    inp = parse_input(lines[n], n + 2)
    return None if inp.kind == "end" else inp


def outbox_messages(journal_path: str | Path) -> list[dict[str, Any]]:
    """What a table sent settlement, in its order: its journal's outbox."""
    with sqlite3.connect(journal_path) as conn:
        return [json.loads(body) for (body,) in
                conn.execute("SELECT body FROM settlement_outbox ORDER BY seq")]


def balances_from_outbox(messages: list[dict[str, Any]],
                         start: dict[str, int] | None = None) -> dict[str, int]:
    """Every wallet's balance from a table's own messages, without the ledger: a wallet set,
    then each bet's deduction, each hand's returns, each cancelled round's refunds; a pot
    game's money into the pot, out to the winners or back. `start`: the balances before
    (wallets the studio funded and other tables moved: a table that reserves sets none, and
    its money only moves them)."""
    balances: dict[str, int] = dict(start or {})
    held: dict[str, list[dict[str, Any]]] = {}
    for m in messages:
        kind = m["kind"]
        if kind == "wallet":
            balances[m["account"]] = m["balance"]
        elif kind == "bet":
            balances[m["account"]] = balances.get(m["account"], 0) - m["deducted"]
            held.setdefault(m["round_id"], []).append(m)
        elif kind == "hand":
            for line in m["settlement"]:
                balances[line["account"]] = balances.get(line["account"], 0) + line["returned"]
        elif kind == "round_cancelled":
            for bet in held.get(m["round_id"], []):
                balances[bet["account"]] = balances.get(bet["account"], 0) + bet["deducted"]
        elif kind == "pot_in":
            balances[m["account"]] = balances.get(m["account"], 0) - m["amount"]
        elif kind == "pot_settled":
            for account, amount in m["payouts"].items():
                balances[account] = balances.get(account, 0) + amount
        elif kind == "pot_cancelled":
            for refund in m["refunds"]:
                balances[refund["account"]] = balances.get(refund["account"], 0) + refund["amount"]
    return balances


def _main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m station.studio.tables")
    parser.add_argument("--journal", required=True, help="the table's journal file")
    parser.add_argument("--table", required=True)
    parser.add_argument("--game", default=default_game(),
                        help="the table's game (default %(default)s)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--pace", type=float, default=0.3, help="wall seconds per round")
    parser.add_argument("--bus", required=True)
    parser.add_argument("--max-backoff", type=float, default=1.0)
    parser.add_argument("--drain-timeout", type=float, default=120.0)
    parser.add_argument("--reserve", action="store_true",
                        help="reserve every bet (a pot game: every draw) in the studio ledger"
                             " over the bus at intake; the wallets are the studio's")
    parser.add_argument("--reserve-timeout", type=float, default=0.3,
                        help="seconds a reservation waits for the ledger's answer (0.3)")
    parser.add_argument("--players", help="the players' accounts are <PLAYERS>.u01…"
                        " (default: the table's name); tables with the same seat the same players")
    args = parser.parse_args(argv)
    if not 0.01 <= args.reserve_timeout <= 10:
        parser.error("--reserve-timeout: 0.01 to 10 seconds")
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    journal = Path(args.journal)
    table = StudioTable(args.table, args.game, seed=args.seed, rounds=args.rounds,
                        pace_s=args.pace, bus_url=args.bus, folder=journal.parent,
                        max_backoff=args.max_backoff, reserve=args.reserve,
                        reserve_timeout_s=args.reserve_timeout, players=args.players)
    if table.journal_path != journal:
        table.close()
        print(f"--journal must be named {args.table}.journal.sqlite", file=sys.stderr)
        return 2
    try:
        table.start()
        table.finished.wait()
        delivered = table.drain(args.drain_timeout)
        messages = table.outbox()
        print(json.dumps({"table": args.table, "game": args.game, "delivered": delivered,
                          "rounds": table.rounds_done, "messages": len(messages),
                          "resumed_at_line": table.resume.next_line,
                          "failed": repr(table.failed) if table.failed else None,
                          "errors": len(table.errors)}), flush=True)
        return 0 if delivered and table.failed is None else 1
    finally:
        table.close()


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
