"""The console of a Pai Gow and of a Si Zhi Dao table in the real browser (Debian's Chromium
through Playwright), over live tables fed recorded traces: each game gets its own panel in
the one console; a Pai Gow door shows nothing before the camera confirms it, then its cards,
hand and points, the dice and the results, one bead road per door and the banker's hands; a
Si Zhi Dao table shows seats, stacks, the pot, the turn and its clock, backs until the
showdown, the layers, the tie round's buy-ins and a results history; decisions with reasons
per game; everything inside its panel at the common screen sizes."""

from __future__ import annotations

import re

import pytest

from tests.console.console_page import as_shown, login, shot
from tests.console.test_floor import SCREENS

pytestmark = pytest.mark.browser


INSIDE = """(sel) => {
  const page = document.documentElement.clientWidth;
  const out = [];
  for (const panel of document.querySelectorAll(sel.panels)) {
    if (panel.hidden) continue;
    const p = panel.getBoundingClientRect();
    if (p.right > page + 0.5) out.push(`${panel.id || panel.className} ends at ${p.right} of ${page}`);
    for (const item of panel.querySelectorAll(sel.items)) {
      const r = item.getBoundingClientRect();
      if (r.left < p.left - 0.5 || r.right > p.right + 0.5)
        out.push(`${item.dataset.door || item.dataset.seat || item.tagName} at ${r.left}..${r.right} outside ${p.left}..${p.right}`);
      for (const c of item.querySelectorAll('.card')) {
        const k = c.getBoundingClientRect();
        if (k.left < r.left - 0.5 || k.right > r.right + 0.5 || k.width < 20)
          out.push(`card ${c.dataset.card || 'back'} at ${k.left}..${k.right} outside ${r.left}..${r.right}`);
      }
    }
  }
  return out;
}"""


def _fits(pg, panels: str, items: str, name: str) -> None:
    for width, height in SCREENS:
        pg.set_viewport_size({"width": width, "height": height})
        pg.wait_for_timeout(300)
        problems = pg.evaluate(INSIDE, {"panels": panels, "items": items})
        assert problems == [], (width, problems)
        shot(pg, f"{name}-{width}")
    pg.set_viewport_size({"width": 1400, "height": 1100})


def _cards(locator) -> list[str]:
    return locator.evaluate_all("els => els.map(e => e.dataset.card)")


def test_pai_gow_doors_dice_results_roads_and_banker_history(make_table, serve, page) -> None:
    from playwright.sync_api import expect

    table = make_table("traces-paigow/clean")
    con = serve(table)
    exp = table.expected
    hand1 = exp["hands"][0]
    table.feed_until_view(lambda v: (v.get("round") or {}).get("betting_open") is True)
    login(page, con.url, "sup1", "floor-sup-pass")
    expect(page.locator("#paigow-panel")).to_be_visible()
    # one console, the Pai Gow panel: Pok Deng's round, shoe and roads are not shown
    expect(page.locator("section.round")).to_be_hidden()
    expect(page.locator("section.shoe")).to_be_hidden()
    expect(page.locator("#pg-round-id")).to_have_text("WZ-01-S1-R1")
    # the game's own machine, its current state lit
    expect(page.locator('#diagram .game-diagram[data-game="paigow"]')).to_be_visible()
    expect(page.locator('#diagram .state.current')).to_have_count(1)
    expect(page.locator('#diagram .state.current[data-state="betting"]')).to_have_count(1)
    expect(page.locator("#pg-countdown")).to_contain_text("betting closes in")
    expect(page.locator("#doors .door")).to_have_count(4)
    # the game's decisions with their reasons
    expect(page.locator('#action-buttons button[data-action="cancel_round"]')).to_be_enabled()
    expect(page.locator('#action-buttons [data-why="cancel_round"]')).to_contain_text(
        "although nothing is wrong with it")
    expect(page.locator('#action-buttons [data-why="end_shoe"]')).to_have_text(
        "not now: a round is in progress: cancel it or finish it")
    expect(page.locator("#pg-dice-why")).to_contain_text("betting is still open")
    assert page.locator('#action-buttons button[data-action="dice"]').count() == 0

    # the deal: some doors confirmed, others dealt but not yet confirmed
    def partly(v: dict) -> bool:
        doors = (v.get("round") or {}).get("doors") or {}
        done = [d for d in doors.values() if d["confirmed"]]
        waiting = [d for d in doors.values() if d["dealt"] and not d["confirmed"]]
        return bool(done) and bool(waiting)

    v = table.feed_until_view(partly)
    r = v["round"]
    assert r["dice"] == exp["dice"][0]["dice"] and r["first_door"] == exp["dice"][0]["first_door"]
    expect(page.locator("#pg-dice")).to_have_text(" · ".join(str(x) for x in r["dice"]))
    expect(page.locator("#pg-dice-entry")).to_have_text(" · ".join(str(x) for x in r["dice"]))
    expect(page.locator("#pg-first-door")).to_have_text(r["first_door"])
    expect(page.locator(f'#doors .door[data-door="{r["first_door"]}"]')).to_contain_text("first")
    confirmed = [p for p, d in r["doors"].items() if d["confirmed"]]
    waiting = [p for p, d in r["doors"].items() if not d["confirmed"]]
    for p in confirmed:
        door = page.locator(f'#doors .door[data-door="{p}"]')
        expect(door.locator("[data-card]")).to_have_count(2)
        assert sorted(_cards(door.locator("[data-card]"))) == sorted(hand1["cards"][p])
        expect(door.locator(".hand")).to_have_attribute("data-hand", hand1["results"][p]["hand"])
        expect(door.locator(".hand")).to_contain_text(f'{hand1["results"][p]["points"]} points')
    hidden = {c for p in waiting for c in hand1["cards"][p]}
    text, markup = page.locator("body").inner_text(), page.content()
    for p in waiting:
        door = page.locator(f'#doors .door[data-door="{p}"]')
        assert door.locator("[data-card]").count() == 0
        assert door.locator(".card.pending").count() == r["doors"][p]["dealt"]
    assert not [c for c in hidden if as_shown(c) in text or f'data-card="{c}"' in markup]
    shot(page, "20-paigow-confirming")

    # the round is validated: every door, its hand and its outcome against the banker
    table.feed_until_view(lambda v: v.get("rounds_settled", 0) >= 1)
    expect(page.locator("#pg-countdown")).to_have_text("settled")
    for p, cards in hand1["cards"].items():
        door = page.locator(f'#doors .door[data-door="{p}"]')
        expect(door.locator("[data-card]")).to_have_count(2)
        assert sorted(_cards(door.locator("[data-card]"))) == sorted(cards)
        if p != "BANKER":
            expect(door.locator(".outcome")).to_have_attribute("data-outcome", hand1["results"][p]["outcome"])
    expect(page.locator('#pg-roads svg[data-position="SHUN"] g.bead')).to_have_count(1)
    expect(page.locator("#banker-history tbody tr")).to_have_count(1)
    _fits(page, "#paigow-panel", ".door", "21-paigow-round")

    # the whole session: six rounds, one bead per round on each door's road, and the
    # banker's hands newest first
    table.feed()
    hands = exp["hands"]
    expect(page.locator("#rounds li")).to_have_count(len(hands))
    for p in ("SHUN", "CHU", "DAO"):
        beads = page.locator(f'#pg-roads svg[data-position="{p}"] g.bead')
        expect(beads).to_have_count(len(hands))
        assert beads.evaluate_all("els => els.map(e => e.dataset.outcome)") == [
            h["results"][p]["outcome"] for h in hands]
        pairs = beads.evaluate_all("els => els.map(e => e.dataset.pair === '1')")
        assert pairs == [h["results"][p]["hand"].startswith("pair_") for h in hands]
    rows = page.locator("#banker-history tbody tr")
    expect(rows).to_have_count(len(hands))
    assert rows.evaluate_all("els => els.map(e => e.dataset.round)") == [
        h["round_id"] for h in reversed(hands)]
    first_row = rows.first
    assert sorted(_cards(first_row.locator("[data-card]"))) == sorted(hands[-1]["cards"]["BANKER"])
    _fits(page, "section.roads:not([hidden])", ".road", "22-paigow-roads")

    # recall of a round: the doors, the dice and the first door
    page.locator(f'#rounds li[data-round="{hands[1]["round_id"]}"] a').click()
    recall = page.locator("#recall")
    expect(recall).to_have_attribute("data-round", hands[1]["round_id"])
    expect(recall).to_contain_text(f'first door {hands[1]["first_door"]}')
    assert sorted(_cards(recall.locator("[data-card]"))) == sorted(
        c for cs in hands[1]["cards"].values() for c in cs)


def test_si_zhi_dao_seats_pot_turn_showdown_tie_round_and_results(make_table, serve, page) -> None:
    from playwright.sync_api import expect

    table = make_table("traces-sizhidao/tie_once")
    con = serve(table)
    exp = table.expected
    g1 = exp["games"][0]
    d1 = g1["deals"][0]
    # betting in the first deal: the leader has bet, the next seat is to act
    v = table.feed_until_view(lambda v: (((v.get("sizhidao") or {}).get("game") or {}).get("deal") or {})
                              .get("turn") not in (None, d1["actions"][0]["seat"]))
    login(page, con.url, "sup1", "floor-sup-pass")
    expect(page.locator("#sz-panel")).to_be_visible()
    expect(page.locator("section.round")).to_be_hidden()
    expect(page.locator("#paigow-panel")).to_be_hidden()
    z = v["sizhidao"]
    turn = z["game"]["deal"]["turn"]
    expect(page.locator("#sz-game-id")).to_have_text(g1["game_id"])
    expect(page.locator('#diagram .game-diagram[data-game="sizhidao"] .state.current[data-state="betting"]')).to_have_count(1)
    expect(page.locator("#sz-turn")).to_contain_text(f"{turn} to act")
    expect(page.locator("#sz-turn")).to_contain_text("s left")
    expect(page.locator(f'#seats .seat[data-seat="{turn}"]')).to_have_class("pos seat " + turn + " turn")
    expect(page.locator("#seats .seat")).to_have_count(len(g1["players"]))
    for seat, account in g1["players"].items():
        cell = page.locator(f'#seats .seat[data-seat="{seat}"]')
        expect(cell).to_contain_text(account)
        expect(cell.locator(".card.back")).to_have_count(4)
        expect(cell.locator(".stack")).to_have_attribute("data-stack", str(z["seats"][seat]["stack"]))
    expect(page.locator("#sz-pot")).to_have_text(str(z["game"]["pot"]))
    # backs only: no seat's card anywhere on the page before its showdown
    assert page.locator("#sz-panel [data-card]").count() == 0
    hidden = {c for s in exp["secrets"] if s["deal_id"] == d1["deal_id"] for c in s["cards"]}
    text, markup = page.locator("body").inner_text(), page.content()
    assert not [c for c in hidden if as_shown(c) in text or f'data-card="{c}"' in markup]
    # the pot game's decisions
    expect(page.locator('#action-buttons [data-why="close_table"]')).to_have_text(
        "not now: a game is in progress")
    expect(page.locator('#action-buttons [data-why="cancel_round"]')).to_contain_text(
        "every ante, bet and buy-in refunded")
    _fits(page, "#sz-panel", ".seat", "30-sizhidao-betting")

    # the showdown, its layer tied and carried, the buy-in window of the tie round
    v = table.feed_until_view(lambda v: bool(((v.get("sizhidao") or {}).get("game") or {}).get("buy_in")))
    show = d1["showdown"]
    for seat, a in show.items():
        cell = page.locator(f'#seats .seat[data-seat="{seat}"]')
        expect(cell.locator('[data-group="front"] [data-card]')).to_have_count(2)
        assert sorted(_cards(cell.locator('[data-group="front"] [data-card]'))) == sorted(a["front"])
        assert sorted(_cards(cell.locator('[data-group="back"] [data-card]'))) == sorted(a["back"])
    [layer] = d1["layers"]
    expect(page.locator("#sz-layers li")).to_have_count(1)
    expect(page.locator("#sz-layers li")).to_contain_text(f'tied {" ".join(layer["tied"])}')
    expect(page.locator("#sz-carried li")).to_contain_text(f'{layer["amount"]}: tied {" ".join(layer["tied"])}')
    window = v["sizhidao"]["game"]["buy_in"]
    expect(page.locator("#sz-buyin-text")).to_contain_text(f'price {window["price"]}')
    expect(page.locator("#sz-turn")).to_contain_text("buy-in window")
    _fits(page, "#sz-panel", ".seat", "31-sizhidao-showdown")
    d2 = g1["deals"][1]
    table.feed_until_view(lambda v: len((((v.get("sizhidao") or {}).get("game") or {}).get("buy_in") or {})
                                        .get("answers", {})) >= len(d2["buy_ins"])
                          or not ((v.get("sizhidao") or {}).get("game") or {}).get("buy_in"))
    for b in d2["buy_ins"]:
        li = page.locator(f'#sz-buyin-answers li[data-seat="{b["seat"]}"], #seats .seat[data-seat="{b["seat"]}"]')
        expect(li.first).to_be_visible()

    # the whole session: a results history instead of a bead road
    table.feed()
    rows = page.locator("#sz-results tbody tr")
    expect(rows).to_have_count(len(exp["games"]))
    assert rows.evaluate_all("els => els.map(e => e.dataset.game)") == [
        g["game_id"] for g in reversed(exp["games"])]
    for g in exp["games"]:
        row = page.locator(f'#sz-results tbody tr[data-game="{g["game_id"]}"]')
        winners = [s for s, a in g["players"].items() if a in g["settled"]["payouts"]]
        cells = row.locator("td").all_inner_texts()
        assert cells == [g["game_id"], " ".join(winners), str(g["settled"]["pot"]),
                         str(len(g["deals"]) - 1)], cells
    expect(page.locator("section.roads:not([hidden])")).to_have_count(0)
    shot(page, "32-sizhidao-results")
    # recall of the first game: its deals, the showdowns, the payouts
    page.locator(f'#rounds li[data-round="{g1["game_id"]}"] a').click()
    recall = page.locator("#recall")
    expect(recall).to_contain_text(d2["deal_id"])
    expect(recall).to_contain_text(f'pot {g1["settled"]["pot"]}')



def test_a_pai_gow_dice_mismatch_is_decided_from_the_alert(make_table, serve, page) -> None:
    from playwright.sync_api import expect

    table = make_table("traces-paigow/dice_mismatch_resume")
    con = serve(table)
    table.feed_until_view(lambda v: v.get("paused") is True)
    login(page, con.url, "dealer1", "dealer-pass-1")
    alert = page.locator('#alerts .alert[data-kind="dice_mismatch"]')
    expect(alert).to_contain_text("dice")
    assert alert.locator("button").count() == 0  # the dealer cannot decide it
    expect(page.locator('#action-buttons [data-why="open_betting"]')).to_have_text(
        "not now: paused: the supervisor must decide first")
    # the dice the dealer entered and what the tray shows, side by side
    v = table.station.view
    expect(page.locator("#pg-dice-entry")).to_have_text(" · ".join(str(x) for x in v["round"]["dice_entry"]))
    expect(page.locator("#pg-dice")).to_have_text("not yet")
    page.locator("#logout").click()
    page.wait_for_url(re.compile(r"/login$"))
    page.fill("#user", "sup1")
    page.fill("#password", "floor-sup-pass")
    page.click("#login-button")
    expect(page.locator("#who")).to_have_text("sup1 · supervisor")
    alert = page.locator('#alerts .alert[data-kind="dice_mismatch"]')
    expect(alert).to_be_visible()
    # the dealer enters the dice again; the supervisor resumes from the alert
    nxt = table.feed(lambda inp: inp.kind == "supervisor" and inp.value == "resume")
    assert nxt is not None
    table.pos += 1
    table.at(nxt.t_us / 1e6)
    expect(alert.locator('button[data-action="resume"]')).to_be_enabled()
    alert.locator('button[data-action="resume"]').click()
    expect(page.locator("#action-message")).to_have_text("WZ-01 · Resume: done")
    expect(page.locator("#alerts .alert")).to_have_count(0)
    expect(page.locator("#pg-dice")).to_have_text(" · ".join(str(x) for x in table.expected["dice"][0]["dice"]))
    shot(page, "23-paigow-dice-resumed")


def test_the_dealer_enters_the_pai_gow_dice_and_the_deal_follows(make_table, serve, page) -> None:
    from playwright.sync_api import expect

    table = make_table("traces-paigow/clean")
    con = serve(table)
    exp = table.expected["dice"][0]
    table.feed_until_view(lambda v: (v.get("round") or {}).get("betting_open") is True)
    login(page, con.url, "dealer1", "dealer-pass-1")
    form = page.locator("#pg-dice-form")
    expect(page.locator("#pg-dice-why")).to_contain_text("betting is still open")
    expect(form).to_be_hidden()  # not while betting is open
    # the trace's own dice line is not fed: the dealer types the faces into the console
    line = table.feed(lambda inp: inp.kind == "dealer" and inp.value == "dice")
    assert line is not None and line.extra["dice"] == exp["dice"]
    table.pos += 1
    table.at(line.t_us / 1e6)
    expect(page.locator("#pg-dice-why")).to_have_text("awaited from the dealer")
    expect(form).to_be_visible()
    assert page.locator('#action-buttons button[data-action="dice"]').count() == 0
    # a face out of range is stopped in the page: nothing is sent
    page.fill("#pg-die-1", "7")
    page.fill("#pg-die-2", str(exp["dice"][1]))
    page.click("#pg-dice-enter")
    expect(page.locator("#pg-dice-entry")).to_have_text("–")
    page.fill("#pg-die-1", str(exp["dice"][0]))
    shot(page, "24-paigow-dice-entry")
    page.click("#pg-dice-enter")
    faces = " · ".join(str(x) for x in exp["dice"])
    expect(page.locator("#action-message")).to_have_text(f"WZ-01 · Dice {faces}: done")
    expect(page.locator("#pg-dice-entry")).to_have_text(faces)
    # the tray agrees: the dice are known, the control goes, the doors are dealt from them
    v = table.feed_until_view(lambda v: any(
        d["confirmed"] for d in ((v.get("round") or {}).get("doors") or {}).values()))
    assert v["round"]["dice"] == exp["dice"] and v["round"]["first_door"] == exp["first_door"]
    expect(page.locator("#pg-dice")).to_have_text(faces)
    expect(page.locator("#pg-first-door")).to_have_text(exp["first_door"])
    expect(form).to_be_hidden()
    expect(page.locator('#doors .door[data-confirmed="true"]').first).to_be_visible()
    (entry, *_) = con.console.audit.entries(table="WZ-01", limit=5)
    assert (entry["user"], entry["action"], entry["outcome"]) == ("dealer1", "dice", "done")
