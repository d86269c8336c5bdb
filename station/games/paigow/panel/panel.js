// Pai Gow's panels on the console: the doors with what the camera has confirmed, the dice
// and the dealer's dice entry, the results, one bead road per door and the banker's hands.
// Registered for the console (console.js), which calls them with its helpers (`ui`). A door
// shows no card before it is confirmed; the station sends none.
"use strict";

(window.stationPanels = window.stationPanels || {}).paigow = (() => {
  function render(v, ui) {
    const { set, $, el, cardEl, decisionsOf, state } = ui;
    const r = v.round, s = v.shoe;
    set("pg-shuffle", s ? `shuffle ${s.number}${s.ended ? " (ended)" : ""} · round ${r ? r.number : s.rounds} of 2 · ${s.cards_out} cards out` : "no shuffle");
    set("pg-round-id", r ? r.round_id : "");
    const note = $("pg-note");
    note.hidden = !(r && r.betting_open && v.paused);
    note.textContent = note.hidden ? "" : "No bets are taken while the table is paused.";
    const dice = (d) => (d ? d.join(" · ") : "–");
    set("pg-dice-entry", r ? dice(r.dice_entry) : "–");
    set("pg-dice-tray", r ? (r.dice_tray ? r.dice_tray.map((x) => (x === 0 ? "unread" : x)).join(" · ") : "nothing seen since the close") : "–");
    set("pg-dice", r && r.dice ? dice(r.dice) : "not yet");
    set("pg-first-door", r && r.first_door ? r.first_door : "–");
    const dd = decisionsOf(v).dice;
    set("pg-dice-why", dd ? (dd.allowed ? "awaited from the dealer" : dd.reason) : "–");
    // the dealer's dice control: shown while the table awaits the entry
    const form = $("pg-dice-form");
    const awaited = Boolean(dd && dd.allowed && state.session && state.session.actions.includes("dice"));
    // emptied when it appears or the table changes, never while the dealer is typing
    const fresh = form.hidden === awaited || form.dataset.table !== v.table;
    form.hidden = !awaited;
    if (fresh) { form.reset(); form.dataset.table = v.table; }
    renderRoads(v, ui).catch(console.error);
    const box = $("doors");
    box.replaceChildren();
    if (!r) { set("pg-countdown", "no round yet"); set("pg-bets", ""); return; }
    set("pg-bets", `${r.bets} bets, ${r.staked} staked`);
    const result = v.result && v.result.round_id === r.round_id ? v.result : null;
    for (const p of v.positions) {
      const door = (r.doors || {})[p] || { dealt: 0 };
      const cards = el("div", { class: "cards" });
      const shown = (result && result.cards && result.cards[p]) || door.cards;
      if (shown) shown.forEach((c) => cards.append(cardEl(c)));
      else for (let i = 0; i < door.dealt; i++) cards.append(el("span", { class: "card pending", title: "dealt, not yet confirmed by the camera" }));
      const first = r.first_door === p ? " first" : "";
      const cell = el("div", { class: `pos door ${p}${first}`, "data-door": p, "data-confirmed": String(Boolean(shown)) },
        el("h3", { text: p + (first ? " · first" : "") }), cards);
      const res = result && result.results ? result.results[p] : null;
      const hand = res || (door.cards ? door : null);
      if (hand) cell.append(el("div", { class: "hand", "data-hand": hand.hand, text: ui.handText(hand) }));
      else cell.append(el("div", { class: "hand pending", text: door.dealt ? `${door.dealt} dealt, not confirmed` : "" }));
      if (res && res.outcome) cell.append(el("div", { class: `outcome ${res.outcome}`, "data-outcome": res.outcome, text: `${res.outcome} against the banker` }));
      box.append(cell);
    }
    if (result && result.cancelled) box.append(el("div", { class: "outcome lose", text: `cancelled: ${result.cancelled}` }));
    tick(v, ui);
  }

  function tick(v, ui) {
    const r = v.round, cd = ui.$("pg-countdown");
    if (!r) return;
    if (r.betting_open && v.paused) { cd.textContent = "betting paused"; cd.className = "countdown"; }
    else if (r.betting_open) {
      cd.textContent = `betting closes in ${ui.secondsLeft(v, r.closes_at).toFixed(1)} s`; cd.className = "countdown open";
    } else {
      cd.className = "countdown";
      cd.textContent = r.finished ? (v.result && v.result.cancelled ? "cancelled" : "settled")
        : !r.dice ? "betting closed · waiting for the dice" : `dice known · ${r.cards_dealt} of 8 cards dealt`;
    }
  }

  async function renderRoads(v, ui) {
    const { set, $, el, api, changed, state, cardEl, handName } = ui;
    const name = v.table;
    if (!changed("pg-roads", `${name}/${v.rounds_settled}`)) return;
    const { body } = await api(`/api/tables/${encodeURIComponent(name)}/roads`);
    if (name !== state.selected || !body.roads) return;
    set("pg-roads-count", `${body.rounds} rounds`);
    const box = $("pg-roads");
    box.replaceChildren();
    for (const [p, rd] of Object.entries(body.roads)) {
      const div = el("div", { class: "road", "data-door": p }, el("h3", { text: p }));
      div.insertAdjacentHTML("beforeend", rd.svg);  // drawn and escaped by the station
      box.append(div);
    }
    $("banker-history").querySelector("tbody").replaceChildren(...(body.banker || []).map((b) =>
      el("tr", { "data-round": b.round_id }, el("td", { text: b.round_id }),
        el("td", {}, el("div", { class: "cards" }, ...b.cards.map(cardEl))),
        el("td", { text: handName(b.hand) }), el("td", { text: String(b.points) }),
        el("td", { text: b.beat.length ? b.beat.join(" ") : "no door" }))));
  }

  return {
    render,
    tick,
    // the dealer's dice control sends the entry with its two faces
    setup(ui) {
      ui.$("pg-dice-form").addEventListener("submit", (ev) => {
        ev.preventDefault();
        const form = ev.target;
        if (!form.reportValidity()) return;
        const faces = [ui.$("pg-die-1"), ui.$("pg-die-2")].map((i) => Number(i.value));
        ui.decide(form.dataset.table, "dice", { dice: faces });
      });
    },
    // the dice entry is the dice control's, not a plain button
    ownActions: ["dice"],
    labels: { dice: "Dice" },
    recall(body, box, ui) {
      if (body.dice) box.append(ui.el("p", { class: "dice", text: `dice ${body.dice.join(" · ")} · first door ${body.first_door}` }));
    },
  };
})();
