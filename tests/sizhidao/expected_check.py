"""Compare a replay's records with a recorded trace's expected outcomes
(tests/data/traces-sizhidao/README.md says what each field means)."""

from __future__ import annotations

BETTING = ("bet", "call", "raise", "fold", "all_in")


def of(records, type_):
    return [r for r in records if r["type"] == type_]


def check_against_expected(records: list[dict], balances: dict[str, int], expected: dict) -> None:
    games = of(records, "game_open")
    assert [(g["game_id"], g["leader"], g["players"], g["ante"]) for g in games] == [
        (g["game_id"], g["leader"], g["players"], g["ante"]) for g in expected["games"]
    ]
    deals = {r["deal_id"]: r for r in of(records, "deal_open")}
    for g in expected["games"]:
        for d in g["deals"]:
            did = d["deal_id"]
            assert deals[did]["contestants"] == d["contestants"], did
            assert deals[did]["deal_plan"] == d["deal_plan"], did
            actions = [
                {k: r[k] for k in ("t", "account", "seat", "action", "amount", "total", "auto")}
                for r in of(records, "player_action")
                if r["deal_id"] == did and r["action"] in BETTING
            ]
            assert [{**a, "t": round(a["t"], 3)} for a in actions] == d["actions"], did
            shows = [r for r in of(records, "showdown") if r["deal_id"] == did]
            if d["showdown"] is None:
                assert shows == [], did
            else:
                assert len(shows) == 1 and shows[0]["seats"] == d["showdown"], did
                assert round(shows[0]["t"], 3) == d["showdown_t"], did
            layers = [r for r in of(records, "layers") if r["deal_id"] == did]
            assert len(layers) == 1 and layers[0]["layers"] == d["layers"], did
            buy_ins = [
                {
                    k: v
                    for k, v in r.items()
                    if k not in ("type", "deal_id") and not (k == "auto" and v is False)
                }
                for r in of(records, "buy_in")
                if r["deal_id"] == did
            ]
            assert [{**b, "t": round(b["t"], 3)} for b in buy_ins] == d["buy_ins"], did
        settled = [r for r in of(records, "game_settled") if r["game_id"] == g["game_id"]]
        if g.get("settled"):
            s = g["settled"]
            assert len(settled) == 1, g["game_id"]
            assert settled[0]["payouts"] == s["payouts"]
            assert settled[0]["pot"] == s["pot"]
            assert settled[0]["bets"] == s["bets"]
        cancelled = [r for r in of(records, "round_cancelled") if r["round_id"] == g["game_id"]]
        if g.get("cancelled"):
            c = g["cancelled"]
            assert len(cancelled) == 1 and cancelled[0]["reason"] == c["reason"]
            assert cancelled[0]["refunds"] == c["refunds"]
    got_private = [
        (round(r["t"], 3), r["deal_id"], r["account"], r["seat"], r["cards"])
        for r in of(records, "private")
    ]
    assert got_private == [
        (p["t"], p["deal_id"], p["account"], p["seat"], p["cards"]) for p in expected["private"]
    ]
    assert [(r["account"], r["seat"]) for r in of(records, "seated")] == [
        (x["account"], x["seat"]) for x in expected["seated"]
    ]
    assert [(r["account"], r["seat"]) for r in of(records, "left")] == [
        (x["account"], x["seat"]) for x in expected["left"]
    ]
    assert [
        (r.get("account"), r["action"], r["reason"]) for r in of(records, "action_refused")
    ] == [(x["account"], x["action"], x["reason"]) for x in expected["refused"]]
    assert balances == expected["balances"]


def tokens(obj) -> set[str]:
    """Every string in a record or a view (keys included)."""
    out: set[str] = set()

    def walk(x):
        if isinstance(x, str):
            out.add(x)
        elif isinstance(x, dict):
            for k, v in x.items():
                walk(k)
                walk(v)
        elif isinstance(x, list | tuple):
            for v in x:
                walk(v)

    walk(obj)
    return out


def check_records_keep_secrets(records: list[dict], secrets: list[dict]) -> int:
    """No record but the owner's own `private` ones names a seat's card between its deal's
    first read and that seat's showdown. Returns how many (record, secret) pairs it checked."""
    checked = 0
    for rec in records:
        for s in secrets:
            public = s["public_t"] is not None and rec["t"] >= s["public_t"]
            if not (s["from_t"] <= rec["t"] < s["until_t"]) or public:
                continue
            if rec["type"] == "private" and rec["account"] == s["account"]:
                continue
            checked += 1
            assert not set(s["cards"]) & tokens(rec), (rec, s["seat"])
    return checked


def live_secrets(secrets: list[dict], t: float) -> list[dict]:
    """The seats' cards that are secret at `t`: read, and that seat's showdown not begun."""
    return [s for s in secrets
            if s["from_t"] <= t < s["until_t"] and (s["public_t"] is None or t < s["public_t"])]


def check_views_keep_secrets(t: float, views: dict, live: list[dict],
                             owner_saw: set[tuple[str, str]]) -> int:
    """No view but the owner's names a card of a `live` secret (`views`: viewer → view, None
    for the public); notes in `owner_saw` each (deal, seat) whose owner's view named its cards.
    Returns how many (view, secret) pairs it checked."""
    checks = 0
    for s in live:
        for viewer, view in views.items():
            named = set(s["cards"]) & tokens(view)
            if viewer == s["account"]:
                if named:
                    owner_saw.add((s["deal_id"], s["seat"]))
                continue
            assert not named, (t, viewer, s["deal_id"], s["seat"])
            checks += 1
    return checks

