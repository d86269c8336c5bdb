// Pok Deng's panels on the console: the shoe, the round in play with its positions, and one
// bead road per player position of the shoe. Registered for the console (console.js), which
// calls them with its drawing helpers (`ui`); everything shown comes from the public view.
"use strict";

(window.stationPanels = window.stationPanels || {}).pokdeng = (() => {
  function renderShoe(v, ui) {
    const { set, $, fmt, cardEl } = ui;
    const s = v.shoe;
    set("shoe-number", s ? `${s.number}${s.ended ? " (ended)" : ""}` : "no shoe");
    set("shoe-round", s ? fmt(v.round ? v.round.number : s.rounds) : "–");
    set("shoe-cards-out", s ? s.cards_out : "–");
    $("shoe-first-card").replaceChildren(s && s.first_card ? cardEl(s.first_card) : "–");
    set("shoe-burn", s ? (s.first_card ? `${s.burn_count} (${s.burns_left} left)` : "–") : "–");
    set("shoe-cut", s ? (s.cut_card_seen ? "seen" : "not yet") : "–");
    set("shoe-last", s && s.last_round ? `round ${s.last_round}` : "–");
    set("rounds-settled", v.rounds_settled);
  }

  function renderRound(v, ui) {
    const { set, $, el, cardEl, backEl } = ui;
    const r = v.round;
    set("round-id", r ? r.round_id : "");
    const box = $("positions");
    box.replaceChildren();
    const note = $("round-note");
    note.hidden = !(r && r.betting_open && v.paused);
    note.textContent = note.hidden ? "" : "No bets are taken while the table is paused: the platform's bets " +
      "are refused (paused) until the supervisor resumes.";
    if (!r) { set("countdown", "no round yet"); set("round-bets", ""); return; }
    set("round-bets", `${r.bets} bets, ${r.staked} staked${r.last_round ? " · last round of the shoe" : ""}`);
    const result = v.result && v.result.round_id === r.round_id ? v.result : null;
    for (const p of v.positions) {
      const cards = el("div", { class: "cards" });
      const revealed = (result && result.cards && result.cards[p]) || r.revealed[p];
      if (revealed) revealed.forEach((c) => cards.append(cardEl(c)));
      else for (let i = 0; i < (r.dealt[p] || 0); i++) cards.append(backEl());
      const cell = el("div", { class: `pos ${p}`, "data-position": p }, el("h3", { text: p }), cards);
      const res = result && result.results ? result.results[p] : null;
      if (res) {
        cell.append(el("div", { class: `outcome ${res.outcome}`, "data-outcome": res.outcome,
          text: `${res.outcome}${res.multiplier > 1 ? " ×" + res.multiplier : ""}${res.pair ? " · pair" : ""}` }));
      }
      box.append(cell);
    }
    if (result && result.cancelled) {
      box.append(el("div", { class: "outcome lose", text: `cancelled: ${result.cancelled}` }));
    }
    tick(v, ui);
  }

  function tick(v, ui) {
    const cd = ui.$("countdown");
    if (!v || !v.round) return;
    const r = v.round;
    if (r.betting_open && v.paused) {
      cd.textContent = "betting paused";
      cd.className = "countdown";
    } else if (r.betting_open) {
      cd.textContent = `betting closes in ${ui.secondsLeft(v, r.closes_at).toFixed(1)} s`;
      cd.className = "countdown open";
    } else {
      const dealing = `betting closed · ${r.cards_dealt} of 12 cards dealt`;
      cd.textContent = r.finished ? (v.result && v.result.cancelled ? "cancelled" : "settled")
        : `${dealing}${r.burned ? " (+ burn)" : ""}`;
      cd.className = "countdown";
    }
  }

  async function renderRoads(v, ui) {
    const { set, $, el, api, changed, state } = ui;
    const name = v.table;
    const shoe = v.shoe ? v.shoe.number : null;
    if (!changed("roads", `${name}/${shoe}/${v.rounds_settled}`)) return;
    const { body } = await api(`/api/tables/${encodeURIComponent(name)}/roads`);
    if (name !== state.selected || !body.roads) return;
    set("roads-shoe", body.shoe ? `shoe ${body.shoe} · ${body.rounds} rounds` : "");
    const box = $("roads");
    box.replaceChildren();
    for (const [p, rd] of Object.entries(body.roads)) {
      const div = el("div", { class: "road", "data-position": p }, el("h3", { text: p }));
      div.insertAdjacentHTML("beforeend", rd.svg);  // drawn and escaped by the station
      box.append(div);
    }
  }

  return {
    render(v, ui) {
      renderShoe(v, ui);
      renderRound(v, ui);
      renderRoads(v, ui).catch(console.error);
    },
    tick,
  };
})();
