"""Every HTTP endpoint of the station, driven with generated bodies: never a 5xx, and a
refusal changes nothing.

Real servers on 127.0.0.1: the bet API and the console over a real `TableStation` (a recorded
shoe played to an open round), and the settlement service over a real ledger. Bodies are
generated JSON (nested, with the endpoints' own field names and hostile values: huge and
negative integers, floats, empty and long strings, wrong types) and raw bytes; the settlement
service gets them both unsigned and correctly signed, so its parsing is reached too.

"Changes nothing": after any 4xx the table's journal has no new input, the balances are as
they were, and the ledger's balances and check are unchanged.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from station.console import UserStore, make_console_app, serve_console, stop_console
from station.live.bet_api import make_bet_app
from station.settlement.core import SettlementCore
from station.settlement.service import make_settlement_app
from station.settlement.transport import signed_headers
from tests.settlement.helpers import SECRET, serve_in_thread
from tests.settlement.test_bet_api import LiveTable

KEY = "k-fuzz-platform-51ab"
ACTIONS = {"new_shoe", "open_betting", "confirm_shuffle", "resume", "cancel_round", "end_shoe",
           "close_table"}
FIELDS = ["account", "spot", "amount", "ref", "balance", "action", "user", "password", "messages",
          "key", "kind", "t", "round_id", "bets"]

scalars = st.one_of(
    st.none(), st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, -1, 1, 2**31, 2**53 + 1, 2**62 + 1, 2**63, 2**64, 10**15, 10**15 + 1]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=40),
    st.sampled_from(["", "u1", "P1", "P1PAIR", "r" * 129, "r" * 200, "resume", "x" * 2000]),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.dictionaries(st.one_of(st.sampled_from(FIELDS), st.text(max_size=10)), inner, max_size=6),
    ),
    max_leaves=25,
)
raw_bodies = st.one_of(
    st.binary(max_size=300),
    st.sampled_from([b"[" * 5000 + b"]" * 5000, b'{"a":' * 3000 + b"1" + b"}" * 3000, b"NaN",
                     b'{"amount": NaN}', b'{"account": "u1", "spot": "P1", "amount": Infinity}',
                     b"\xff\xfe\x00", b'{"action": ["resume"]}', b'{"action": {"x": 1}}',
                     b'{"user": "' + b"u" * 100_000 + b'", "password": "x"}']),
)
bodies = st.one_of(json_values.map(lambda v: json.dumps(v).encode()), raw_bodies)


def journal_inputs(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT COUNT(*) FROM inputs").fetchone()[0]


class Station:
    """A table at an open round with its bet API and console; a settlement service."""

    def __init__(self, tmp: Path) -> None:
        self.table = LiveTable(tmp / "journal.sqlite")
        self.table.set_wallet("u1", 1000)
        self.table.open_round()
        users = UserStore(None)
        users.add("sup1", "supervisor", "floor-sup-pass")
        self.console_app = make_console_app([self.table.station], users=users,
                                            secret="fuzz-secret-" + "y" * 20,
                                            audit_path=tmp / "audit.sqlite")
        self.console_server, self.console_thread, self.console_url = serve_console(self.console_app)
        self.ledger = SettlementCore(tmp / "ledger.sqlite")
        self._bet = serve_in_thread(make_bet_app(self.table.station.place_bets, {KEY: "fuzz"},
                                                 set_wallet=self.table.set_wallet))
        self._svc = serve_in_thread(make_settlement_app(self.ledger, SECRET, window=60))
        self.bet_url = self._bet.__enter__()
        self.svc_url = self._svc.__enter__()
        self.http = httpx.Client(timeout=30)
        login = self.http.post(self.console_url + "/api/login",
                               json={"user": "sup1", "password": "floor-sup-pass"})
        assert login.status_code == 200
        self.csrf = login.json()["csrf"]

    def state(self) -> tuple[Any, ...]:
        return (journal_inputs(self.table.journal), self.table.balances, self.ledger.balances())

    def close(self) -> None:
        self.http.close()
        self._bet.__exit__(None, None, None)
        self._svc.__exit__(None, None, None)
        stop_console(self.console_server, self.console_thread)
        self.table.stop()
        self.ledger.close()


@pytest.fixture(scope="module")
def station(tmp_path_factory: pytest.TempPathFactory):
    s = Station(tmp_path_factory.mktemp("fuzz"))
    yield s
    assert s.ledger.check().ok
    s.close()


def _send(s: Station, endpoint: str, body: bytes, content_type: str) -> httpx.Response:
    headers = {"Content-Type": content_type}
    if endpoint.startswith("bet:"):
        headers["Authorization"] = f"Bearer {KEY}"
        return s.http.post(s.bet_url + endpoint[4:], content=body, headers=headers)
    if endpoint == "svc:signed":
        headers.update(signed_headers(SECRET, body))
        return s.http.post(s.svc_url + "/v1/deliver", content=body, headers=headers)
    if endpoint == "svc:unsigned":
        return s.http.post(s.svc_url + "/v1/deliver", content=body, headers=headers)
    if endpoint == "console:login":
        return s.http.post(s.console_url + "/api/login", content=body, headers=headers)
    if endpoint == "console:form-login":
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        return s.http.post(s.console_url + "/login", content=body, headers=headers)
    if endpoint == "console:action":
        headers["X-CSRF-Token"] = s.csrf
        return s.http.post(s.console_url + "/api/tables/PD-01/actions", content=body, headers=headers)
    if endpoint == "console:action-no-csrf":
        return s.http.post(s.console_url + "/api/tables/PD-01/actions", content=body, headers=headers)
    raise AssertionError(endpoint)


ENDPOINTS = ["bet:/v1/bets", "bet:/v1/bets/batch", "bet:/v1/wallets", "svc:signed", "svc:unsigned",
             "console:login", "console:form-login", "console:action", "console:action-no-csrf"]


def _is_real_action(body: bytes) -> bool:
    try:
        v = json.loads(body)
    except (ValueError, RecursionError):
        return False
    return isinstance(v, dict) and isinstance(v.get("action"), str) and v["action"] in ACTIONS


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(endpoint=st.sampled_from(ENDPOINTS), body=bodies,
       content_type=st.sampled_from(["application/json", "text/plain", "application/json; charset=utf-8"]))
def test_no_endpoint_answers_5xx_and_refusals_change_nothing(station: Station, endpoint: str,
                                                             body: bytes, content_type: str) -> None:
    if endpoint.startswith("console:action") and _is_real_action(body):
        body = b'{"action": "not-an-action"}'  # the table's own decisions are tested elsewhere
    before = station.state()
    answer = _send(station, endpoint, body, content_type)
    assert answer.status_code < 500, (endpoint, body[:200], answer.status_code, answer.text[:300])
    if 400 <= answer.status_code < 500:
        assert answer.json(), "a refusal says why"
        assert station.state() == before, (endpoint, body[:200], answer.status_code)


def test_the_fuzzed_station_still_restarts_from_its_journal(station: Station) -> None:
    """Whatever the fuzzing got accepted, the journal replays (nothing can brick a restart)."""
    from station.live.table_station import TableStation

    copy = station.table.journal.with_name("copy.sqlite")
    with sqlite3.connect(station.table.journal) as src, sqlite3.connect(copy) as dst:
        src.backup(dst)  # a consistent copy of the running table's journal
    restarted = TableStation(station.table.station.settings, copy)
    restarted.start()
    try:
        assert restarted.core.balances == station.table.balances
    finally:
        restarted.stop()
