"""The console in a real browser: Debian's Chromium, headless, driven by Playwright, against a
real console on uvicorn over live tables fed recorded traces. Screenshots of the console go to
`artifacts/console/` (git-ignored) for people to look at."""

from __future__ import annotations

import re

import pytest

from tests.console.console_page import as_shown, login, shot

pytestmark = pytest.mark.browser


def _before(t: float):
    return lambda inp: inp.t_us >= t * 1_000_000


def test_supervisor_watches_a_round_resumes_a_fault_and_reads_the_road(make_table, serve, page) -> None:
    from playwright.sync_api import expect

    table = make_table("order_fault")
    con = serve(table)
    table.feed(_before(30.0))  # shoe confirmed, loaded, first card and burns done

    # a wrong password is refused on the form, the right one opens the console
    login(page, con.url, "sup1", "not the password")
    expect(page.locator("#login-message")).to_contain_text("Wrong user name or password")
    page.fill("#user", "sup1")
    page.fill("#password", "floor-sup-pass")
    page.click("#login-button")
    expect(page.locator("#link-status")).to_have_text("live")
    expect(page.locator("#who")).to_have_text("sup1 · supervisor")
    expect(page.locator('#diagram .state.current[data-state="between_rounds"]')).to_have_count(1)
    expect(page.locator("#shoe-first-card [data-card]")).to_have_attribute("data-card", "2S")
    expect(page.locator("#shoe-burn")).to_have_text("2 (0 left)")

    # round 1 goes live: the countdown runs, cards arrive face down
    table.feed(_before(40.0))
    expect(page.locator("#round-id")).to_have_text("PD-01-S1-R1")
    expect(page.locator("#countdown")).to_contain_text("betting closes in")
    expect(page.locator('#diagram .state.current[data-state="betting"]')).to_have_count(1)
    expect(page.locator('#positions .pos[data-position="P1"] .card.back')).to_have_count(2)
    expect(page.locator('#positions .pos[data-position="B"] .card.back')).to_have_count(1)
    # nothing face up in the positions while bets are taken
    assert page.locator("#positions [data-card]").count() == 0
    # no card of the round anywhere on the page, in either notation (2S is the first card,
    # face up on the table, and may be shown)
    hand1 = table.expected["hands"][0]["cards"]
    hidden = {c for cs in hand1.values() for c in cs} - {"2S"}
    text, markup = page.locator("body").inner_text(), page.content()
    assert not [c for c in hidden if as_shown(c) in text or f'data-card="{c}"' in markup]
    shot(page, "01-betting")

    # the round is revealed and settled: the cards, the results, one bead per road
    table.feed(_before(56.0))
    expect(page.locator("#countdown")).to_have_text("settled")
    for p, cards in hand1.items():
        shown = page.locator(f'#positions .pos[data-position="{p}"] [data-card]')
        expect(shown).to_have_count(2)
        assert sorted(shown.evaluate_all("els => els.map(e => e.dataset.card)")) == sorted(cards)
    res1 = table.expected["hands"][0]["results"]
    expect(page.locator('#positions .pos[data-position="P1"] .outcome')).to_have_attribute(
        "data-outcome", res1["P1"]["outcome"])
    expect(page.locator('#roads svg[data-position="P1"] g.bead')).to_have_count(1)
    expect(page.locator("#rounds li")).to_have_count(1)

    # round 2: a card goes to the wrong zone; the table pauses and the console alarms
    table.feed(_before(65.05))
    alert = page.locator('#alerts .alert[data-kind="order"]')
    expect(alert).to_be_visible()
    expect(alert).to_contain_text("Cards in the position zones do not follow the deal order.")
    # when, as the floor says it; what is wrong, said once, naming the zone and what the deal
    # order expected there
    expect(alert).to_contain_text(re.compile(r"\b\d+ s ago"))
    expect(alert).not_to_contain_text("table clock")
    expect(alert.locator(".detail")).to_contain_text(re.compile(r"P\d holds \d cards?, the deal order puts \d there"))
    assert alert.inner_text().count("do not follow the deal order") == 1
    expect(alert).to_contain_text("resume after correcting, cancel")
    expect(page.locator('#tiles .tile.paused[data-table="PD-01"]')).to_have_count(1)
    expect(page.locator("#badge-paused")).to_be_visible()
    expect(page).to_have_title("⚠ PAUSED PD-01 · Table console")
    expect(page.locator('#diagram .state.current[data-state="paused"]')).to_have_count(1)
    shot(page, "02-alert")

    # resuming before the zone is put right: the table says why not
    alert.locator('button[data-action="resume"]').click()
    expect(page.locator("#action-message")).to_contain_text("refused")
    expect(page.locator("#action-message")).to_contain_text("deal order")
    expect(alert).to_be_visible()

    # the dealer corrects the zone; now the resume is taken
    table.feed(_before(69.6))
    table.at(69.6)
    alert.locator('button[data-action="resume"]').click()
    expect(page.locator("#action-message")).to_have_text("PD-01 · Resume: done")
    expect(page.locator("#alerts .alert")).to_have_count(0)
    expect(page.locator('#tiles .tile.paused')).to_have_count(0)
    expect(page).to_have_title("Table console")
    expect(page.locator('#audit tbody tr[data-outcome="done"]')).to_have_count(1)
    expect(page.locator('#audit tbody tr[data-outcome="refused"]')).to_have_count(1)

    # the rest of the shoe: six beads on every road, as the rules say
    table.feed()
    expect(page.locator("#rounds li")).to_have_count(6)
    expect(page.locator("#shoe-number")).to_have_text("1 (ended)")
    hands = table.expected["hands"]
    for p in ("P1", "P2", "P3", "P4", "P5"):
        beads = page.locator(f'#roads svg[data-position="{p}"] g.bead')
        expect(beads).to_have_count(6)
        got = beads.evaluate_all("els => els.map(e => e.dataset.outcome)")
        assert got == [h["results"][p]["outcome"] for h in hands]
        pairs = beads.evaluate_all("els => els.map(e => e.dataset.pair === '1')")
        assert pairs == [h["cards"][p][0][0] == h["cards"][p][1][0] for h in hands]
    shot(page, "03-roads")

    # game recall: round 2, its cards, its fault and who resumed it
    page.locator('#rounds li[data-round="PD-01-S1-R2"] a').click()
    recall = page.locator("#recall")
    expect(recall).to_have_attribute("data-round", "PD-01-S1-R2")
    expect(recall).to_contain_text("order")
    expect(recall).to_contain_text("resume by sup1")
    shown = recall.locator("[data-card]").evaluate_all("els => els.map(e => e.dataset.card)")
    assert sorted(shown) == sorted(c for cs in hands[1]["cards"].values() for c in cs)
    shot(page, "04-recall")


def test_dealer_and_a_degraded_second_table(make_table, serve, page) -> None:
    from playwright.sync_api import expect

    main = make_table("mismatch_cancel")
    shoe_only = make_table("degraded_no_camera", table="PD-02")
    con = serve(main, shoe_only)
    main.feed(_before(105.2))  # round 3: the camera and the shoe disagree at reveal
    shoe_only.feed(_before(40.0))

    login(page, con.url, "dealer1", "dealer-pass-1")
    expect(page.locator("#who")).to_have_text("dealer1 · dealer")
    expect(page.locator("#tiles .tile")).to_have_count(2)
    # the pause is on every screen, but a dealer cannot decide it
    alert = page.locator('#alerts .alert[data-kind="card_mismatch"]')
    expect(alert).to_contain_text("Camera and shoe disagree on a card.")
    assert alert.locator("button").count() == 0
    buttons = page.locator("#action-buttons button")
    expect(buttons).to_have_count(2)
    assert buttons.evaluate_all("els => els.map(e => e.dataset.action)") == ["new_shoe", "open_betting"]
    # while paused the dealer is offered neither: each says why not
    for action in ("new_shoe", "open_betting"):
        expect(page.locator(f'#action-buttons button[data-action="{action}"]')).to_be_disabled()
    expect(page.locator('#action-buttons [data-why="open_betting"]')).to_have_text(
        "not now: paused: the supervisor must decide first")
    # the round panel says bets are not taken... only while betting would be open; here the
    # round is at its reveal, so no note
    expect(page.locator("#round-note")).to_be_hidden()

    # the second table has no camera: it says so
    page.locator('#tiles .tile[data-table="PD-02"]').click()
    expect(page.locator("#table")).to_have_attribute("data-table", "PD-02")
    expect(page.locator("#badge-degraded")).to_be_visible()
    expect(page.locator("#h-camera")).to_contain_text("not fitted")
    expect(page.locator("#h-link")).to_contain_text("up")
    expect(page.locator("#roads-shoe")).to_have_text("shoe 1 · 0 rounds")
    expect(page.locator("#rounds li")).to_have_count(0)
    shot(page, "05-dealer-degraded")

    # a supervisor cancels the round (confirming the dialog); everyone is refunded
    page.locator("#logout").click()
    page.wait_for_url(re.compile(r"/login$"))
    page.fill("#user", "sup2")
    page.fill("#password", "second-sup-pass")
    page.click("#login-button")
    expect(page.locator("#who")).to_have_text("sup2 · supervisor")
    page.on("dialog", lambda d: d.accept())
    # the shoe and the camera went on reporting meanwhile: only the mismatch holds the table
    main.feed(_before(109.1))
    main.at(109.1)
    page.locator('#alerts .alert[data-kind="card_mismatch"] button[data-action="cancel_round"]').click()
    expect(page.locator("#alerts .alert")).to_have_count(0)
    page.locator('#tiles .tile[data-table="PD-01"]').click()
    expect(page.locator("#roads-shoe")).to_have_text("shoe 1 · 2 rounds")
    li = page.locator('#rounds li[data-round="PD-01-S1-R3"]')
    expect(li).to_contain_text("cancelled (card_mismatch)")
    li.locator("a").click()
    recall = page.locator("#recall")
    expect(recall).to_contain_text("cancel_round by sup2")
    expect(recall).to_contain_text("house +0")
    # a cancelled round's cards were never validated: recall shows none of them
    assert recall.locator("[data-card]").count() == 0
    shot(page, "06-cancelled-recall")
