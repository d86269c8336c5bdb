// The toy game's panel: LEFT and RIGHT with the card each was dealt (once the camera
// confirmed it), the outcome, and its road, from the public view and /roads.
"use strict";

(window.stationPanels = window.stationPanels || {}).highcard = (() => {
  async function renderRoad(v, ui) {
    const { $, el, set, api, changed, state } = ui;
    if (!changed("hc-road", `${v.table}/${v.rounds_settled}`)) return;
    const { body } = await api(`/api/tables/${encodeURIComponent(v.table)}/roads`);
    if (v.table !== state.selected || !body.roads) return;
    set("hc-road-count", `${body.rounds} rounds`);
    $("hc-roads").replaceChildren(...Object.entries(body.roads).map(([p, rd]) => {
      const div = el("div", { class: "road", "data-position": p }, el("h3", { text: p }));
      div.insertAdjacentHTML("beforeend", rd.svg);  // drawn and escaped by the station
      return div;
    }));
  }

  function tick(v, ui) {
    const r = v.round, cd = ui.$("hc-countdown");
    if (!r) { cd.textContent = "no round yet"; return; }
    cd.textContent = r.finished ? "settled" : r.betting_open
      ? `bets close in ${ui.secondsLeft(v, r.closes_at).toFixed(1)} s` : "dealing";
  }

  return {
    render(v, ui) {
      const { $, el, set, cardEl } = ui;
      const r = v.round;
      set("hc-round-id", r ? r.round_id : "");
      set("hc-shoe", v.shoe ? `shoe ${v.shoe.number} · ${v.shoe.rounds} rounds` : "no shoe");
      const result = r && v.result && v.result.round_id === r.round_id ? v.result : null;
      $("hc-positions").replaceChildren(...v.positions.map((p) => {
        const shown = (result && result.cards && result.cards[p]) || (r && r.revealed[p]) || [];
        const res = result && result.results ? result.results[p] : null;
        const cell = el("div", { class: `pos ${p}`, "data-hc-position": p }, el("h3", { text: p }),
          el("div", { class: "cards" }, ...shown.map(cardEl)));
        if (res) cell.append(el("div", { class: `outcome ${res.outcome}`, "data-outcome": res.outcome, text: res.outcome }));
        return cell;
      }));
      tick(v, ui);
      renderRoad(v, ui).catch(console.error);
    },
    tick,
  };
})();
