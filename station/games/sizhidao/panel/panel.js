// Si Zhi Dao's panels on the console: seats, stacks, the pot and its layers, whose turn and
// until when, the tie round's buy-ins, the showdown, and the results history of the games.
// Registered for the console (console.js), which calls them with its helpers (`ui`). A
// seat's cards are backs until its showdown.
"use strict";

(window.stationPanels = window.stationPanels || {}).sizhidao = (() => {
  function render(v, ui) {
    const { set, $, el, fmt, cardEl, backEl, handName } = ui;
    const z = v.sizhidao || { seats: {}, game: null };
    const g = z.game, d = g ? g.deal : null;
    set("sz-game-id", g ? g.game_id : "");
    set("sz-deal", d ? `deal ${d.deal_id} · ${d.phase}` : g ? "waiting for the deck" : "no game");
    set("sz-leader", g ? g.leader : fmt(z.leader));
    set("sz-pot", g ? g.pot : "–");
    set("sz-level", d && d.level !== null ? d.level : "–");
    set("sz-ties", g ? g.tie_rounds : "–");
    const box = $("seats");
    box.replaceChildren();
    const seats = new Set([...Object.keys(z.seats), ...(g ? Object.keys(g.players) : [])]);
    for (const seat of [...seats].sort()) {
      const info = z.seats[seat] || {};
      const account = info.account || (g ? g.players[seat] : "");
      const cls = ["pos", "seat", seat];
      if (d && d.turn === seat) cls.push("turn");
      if (d && d.folded.includes(seat)) cls.push("folded");
      const cell = el("div", { class: cls.join(" "), "data-seat": seat },
        el("h3", { text: seat + ((g ? g.leader : z.leader) === seat ? " · leader" : "") }),
        el("div", { class: "account", text: `${account}${info.connected === false ? " (disconnected)" : ""}` }),
        el("div", { class: "stack", "data-stack": String(info.stack ?? ""), text: info.stack !== undefined ? `stack ${info.stack}` : "left the seat" }));
      if (d && d.contestants.includes(seat)) {
        const show = d.showdown ? d.showdown[seat] : null;
        const cards = el("div", { class: "cards" });
        if (show) {
          const group = (name, cs, klass) => el("div", { class: `group ${name}`, "data-group": name },
            el("span", { class: "label", text: `${name} · ${handName(klass)}` }), el("div", { class: "cards" }, ...cs.map(cardEl)));
          cell.append(group("front", show.front, show.front_class), group("back", show.back, show.back_class));
          if (show.auto) cell.append(el("div", { class: "note", text: "arranged automatically" }));
        } else {
          for (let i = 0; i < (d.cards[seat] || 0); i++) cards.append(backEl());
          cell.append(cards);
        }
        const bits = [];
        if (d.totals[seat] !== undefined) bits.push(`in ${d.totals[seat]}`);
        if (d.folded.includes(seat)) bits.push("folded");
        if (d.all_in.includes(seat)) bits.push("all-in");
        if (d.arranged.includes(seat)) bits.push("arranged");
        if (d.buy_ins && d.buy_ins[seat] !== undefined) bits.push(`bought in ${d.buy_ins[seat]}`);
        cell.append(el("div", { class: "seat-state", text: bits.join(" · ") }));
      } else if (g && g.players[seat]) {
        cell.append(el("div", { class: "seat-state", text: "not in this deal" }));
      }
      box.append(cell);
    }
    const layerText = (la) => `${la.amount}: ${la.contestants ? la.contestants.join(" ") : la.tied.join(" ")}` +
      (la.winner ? ` → ${la.winner}` : la.tied && la.tied.length ? ` · tied ${la.tied.join(" ")}` : "");
    $("sz-layers").replaceChildren(...(d ? d.layers : []).map((la) => el("li", { "data-winner": la.winner || "", text: layerText(la) })));
    $("sz-carried").replaceChildren(...(g ? g.carried : []).map((la) => el("li", { text: `${la.amount}: tied ${la.tied.join(" ")}` })));
    const w = g ? g.buy_in : null;
    set("sz-buyin-text", w ? `price ${w.price} · eligible ${w.eligible.join(" ") || "nobody"}` : "none open");
    $("sz-buyin-answers").replaceChildren(...(w ? Object.values(w.answers) : []).map((a) =>
      el("li", { "data-seat": a.seat, text: `${a.seat} ${a.declined ? "declined" : "bought in " + a.amount}${a.auto ? " (silence)" : ""}` })));
    renderResults(z.history || [], ui);
    tick(v, ui);
  }

  function tick(v, ui) {
    const z = v.sizhidao || {}, g = z.game, d = g ? g.deal : null, cd = ui.$("sz-turn");
    let text = g ? "" : "no game in progress", due = null;
    if (g && g.buy_in) { text = "buy-in window"; due = g.buy_in.closes_at; }
    else if (d && d.phase === "betting" && d.turn) { text = `${d.turn} to act`; due = d.decision_due; }
    else if (d && d.phase === "arranging") { text = "arranging"; due = d.arrange_due; }
    else if (d) text = d.phase === "dealing" ? `dealing · ${Object.values(d.cards).reduce((a, b) => a + b, 0)} cards out` : d.phase;
    else if (g) text = "waiting for the deck";
    if (due !== null && due !== undefined) text += v.paused ? " · clock stopped (paused)" : ` · ${ui.secondsLeft(v, due).toFixed(1)} s left`;
    cd.textContent = text;
    cd.className = due !== null && !v.paused ? "countdown open" : "countdown";
  }

  // a results history instead of a bead road: game, winner, pot, tie rounds
  function renderResults(history, ui) {
    const { el, $, changed } = ui;
    if (!changed("sz-results", JSON.stringify(history))) return;
    const tbody = $("sz-results").querySelector("tbody");
    tbody.replaceChildren(...[...history].reverse().map((h) => el("tr", { "data-game": h.game_id, class: h.cancelled ? "cancelled" : "" },
      ...[h.game_id, h.cancelled ? `cancelled (${h.cancelled})` : (h.winners || []).join(" "), String(h.pot),
        h.cancelled ? "–" : String(h.tie_rounds)].map((x) => el("td", { text: x })))));
  }

  // each deal's contestants, the hands shown down, the layers; the pot and who was paid
  function recall(body, box, ui) {
    const { el, cardEl, handName } = ui;
    if (!body.deals) return;
    for (const d of body.deals) {
      box.append(el("h3", { text: `${d.deal_id}: ${d.contestants.join(" ")}` }));
      if (d.showdown) {
        const hands = el("div", { class: "hands" });
        for (const [seat, a] of Object.entries(d.showdown)) {
          hands.append(el("div", { class: `pos ${seat}`, "data-seat": seat }, el("h3", { text: seat }),
            el("div", { class: "cards" }, ...a.front.map(cardEl)), el("div", { class: "cards" }, ...a.back.map(cardEl)),
            el("div", { class: "hand", text: `${handName(a.front_class)} / ${handName(a.back_class)}${a.auto ? " · auto" : ""}` })));
        }
        box.append(hands);
      }
      if (d.layers) box.append(el("ul", {}, ...d.layers.map((la) => el("li", { text: `${la.amount}: ${la.contestants.join(" ")} → ${la.winner || "tied " + la.tied.join(" ")}` }))));
    }
    box.append(el("p", { class: "totals", text: body.status === "settled" ? `pot ${body.pot} · paid ${Object.entries(body.payouts).map(([a, n]) => `${a} ${n}`).join(" · ")}` : "every ante, bet and buy-in refunded" }));
  }

  return {
    render,
    tick,
    recall,
    // a pot game cancels a whole game (its tie rounds included), not a round
    labels: { cancel_round: "Cancel game" },
    // the finished games are in the game's own part of the view
    roundsKey: (v) => ((v.sizhidao || {}).history || []).map((h) => h.game_id).join(","),
    // a settled game in the console's list of rounds: its pot and what each account was paid
    roundText: (r) => `pot ${r.pot} · ${Object.entries(r.payouts || {}).map(([a, n]) => `${a} ${n}`).join(" · ")}`,
  };
})();
