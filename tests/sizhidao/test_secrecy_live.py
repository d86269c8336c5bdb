"""The secrecy sweep through the live station (PROCEDURE.md §7.10): the recorded traces go
input by input into a real `TableStation` with its player API over HTTP (the players' lines
through `POST /v1/players/actions`). After each input every viewer is searched for the cards
of each seat whose showdown has not begun: the view the console, the dealer and the
supervisor are served (`TableStation.view`), every account's view over HTTP (the platform's
and the seat page's), and, at the end, every event of every stream — each account's (the
platform's and the seat page's) and a stranger's — by the station time it carried. Only the
owner's view and its own `private` records may name them, and the owner's do."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from station.core.inputs import read_trace
from station.core.replay import settings_from_header
from tests.sizhidao.expected_check import tokens
from tests.sizhidao.live_table import KEY, LiveTable, StreamReader

TRACES = Path(__file__).parents[1] / "data" / "traces-sizhidao"


def live_secrets(secrets: list[dict], t: float) -> list[dict]:
    return [s for s in secrets
            if s["from_t"] <= t < s["until_t"] and (s["public_t"] is None or t < s["public_t"])]


@pytest.mark.slow  # every viewer and stream after every input of whole sessions
@pytest.mark.parametrize("name", ["tie_once", "allin_layers"])
def test_no_viewer_and_no_stream_but_the_owner_sees_a_card_before_its_showdown(
        name: str, tmp_path: Path) -> None:
    expected = json.loads((TRACES / name / "expected.json").read_text("utf-8"))
    secrets = expected["secrets"]
    header, inputs = read_trace(TRACES / name / "trace.jsonl")
    settings = settings_from_header(header)
    live = LiveTable(tmp_path / "journal.sqlite", table=settings.table,
                     **{k: settings.value(k) for k in (
                         "ante", "decision_seconds", "arrange_seconds", "buy_in_seconds",
                         "camera_lag_tolerant", "placement_timeout_seconds")},
                     journal_sync="normal").start()
    accounts = sorted({p["account"] for p in expected["private"]})
    http = httpx.Client(base_url=live.url, timeout=10)
    try:
        st = live.station
        auth = {"authorization": f"Bearer {KEY}"}
        seat_tokens = {a: httpx.post(f"{live.url}/v1/players/{a}/seat-token", headers=auth).json()["token"]
                       for a in accounts}
        streams = {("platform", a): StreamReader(f"{live.url}/v1/players/{a}/stream", auth)
                   for a in [*accounts, "stranger"]}
        streams.update({("seat", a): StreamReader(f"{live.url}/v1/seat/stream",
                                                  {"authorization": f"Seat {seat_tokens[a]}"})
                        for a in accounts})
        checks, owner_saw = 0, set()
        for inp in inputs:
            live.clock.t = max(live.clock.t, inp.t_us / 1e6)
            if inp.kind == "end":
                break
            if inp.kind == "player":
                http.post("/v1/players/actions", json=inp.value, headers=auth)
            else:
                st.submit(inp.kind, inp.value, inp.user)
            t = inp.t_us / 1e6
            now = live_secrets(secrets, t)
            if not now:
                continue
            views = [("console/dealer/supervisor", st.view)]
            for a in accounts:
                views.append((a, http.get(f"/v1/players/{a}/view", headers=auth).json()))
                seat_view = http.get("/v1/seat/view",
                                     headers={"authorization": f"Seat {seat_tokens[a]}"}).json()
                assert seat_view["you"]["account"] == a
                views.append((a, seat_view))
            for s in now:
                for viewer, view in views:
                    named = set(s["cards"]) & tokens(view)
                    if viewer == s["account"]:
                        owner_saw.add((s["deal_id"], s["seat"])) if named else None
                        continue
                    assert not named, (t, viewer, s["deal_id"], s["seat"])
                    checks += 1
        assert checks > 300
        assert len(owner_saw) == len(secrets)
        last = [r for r in live.records if r["type"] != "private"][-1]["type"]
        for reader in streams.values():
            assert reader.wait_for(last)  # everything the table made has come down
            reader.stop()
        # every stream: nothing of a seat's cards reached anyone but its owner before its showdown
        stream_checks = 0
        owner_streamed = set()
        for (_kind, viewer), reader in streams.items():
            assert reader.events, (viewer, "an empty stream")
            for event, data in reader.events:
                t = data.get("t")
                if t is None:
                    continue
                if event == "record" and data["type"] == "private":
                    assert data["account"] == viewer
                for s in live_secrets(secrets, t):
                    named = set(s["cards"]) & tokens(data)
                    if viewer == s["account"]:
                        owner_streamed.add((s["deal_id"], s["seat"])) if named else None
                        continue
                    assert not named, (t, viewer, event, data.get("type"), s["seat"])
                    stream_checks += 1
        assert stream_checks > 1000
        assert len(owner_streamed) == len(secrets)
    finally:
        http.close()
        live.stop()
