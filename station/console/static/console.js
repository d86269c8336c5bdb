// The floor supervisor's console. Live from the station's event stream (/api/events): one
// `view` event whenever a table changes. Everything shown comes from the server's public view,
// which never holds a face-down or burn card; this page only draws it.
"use strict";

const ACTION_LABELS = {
  new_shoe: "New shoe", open_betting: "Open betting",
  confirm_shuffle: "Confirm shuffle", resume: "Resume", cancel_round: "Cancel round",
  end_shoe: "End shoe", close_table: "Close table", dice: "Dice",
};
const DANGER = new Set(["cancel_round", "end_shoe", "close_table"]);
// a pot game cancels a whole game (its tie rounds included), not a round
const labelOf = (v, action) => (v && v.panel === "sizhidao" && action === "cancel_round" ? "Cancel game"
  : ACTION_LABELS[action] || action);
const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };

const state = { session: null, views: {}, selected: null, received: {}, message: null };

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}
const $ = (id) => document.getElementById(id);
const set = (id, text) => { $(id).textContent = text; };
const fmt = (x, unit = "") => (x === null || x === undefined ? "–" : `${x}${unit}`);

async function api(path, options = {}) {
  const opts = { credentials: "same-origin", ...options, headers: { ...(options.headers || {}) } };
  if (opts.method && opts.method !== "GET") {
    opts.headers["X-CSRF-Token"] = state.session.csrf;
    opts.headers["Content-Type"] = "application/json";
  }
  const resp = await fetch(path, opts);
  if (resp.status === 401) { window.location = "/login"; throw new Error("logged out"); }
  const body = await resp.json().catch(() => ({ error: `HTTP ${resp.status}` }));
  return { status: resp.status, body };
}

// ------------------------------------------------------------------ cards
function cardEl(code) {
  const rank = code[0] === "T" ? "10" : code[0];
  const suit = code[1];
  return el("span", { class: `card face${suit === "H" || suit === "D" ? " red" : ""}`, "data-card": code,
    title: code, text: rank + (SUITS[suit] || suit) });
}
const backEl = () => el("span", { class: "card back", title: "face down" });

// ------------------------------------------------------------------ rendering
// Parts with buttons are rebuilt only when what they show changes: a button replaced under
// the supervisor's pointer (views arrive several times a second) would swallow the click.
const drawn = {};
function changed(part, key) {
  if (drawn[part] === key) return false;
  drawn[part] = key;
  return true;
}

function renderTiles() {
  const key = JSON.stringify([state.selected, Object.values(state.views).map((v) =>
    [v.table, v.state, v.paused, v.faults.map((f) => f.kind)])]);
  if (!changed("tiles", key)) return;
  const nav = $("tiles");
  nav.replaceChildren();
  for (const [name, v] of Object.entries(state.views)) {
    const cls = ["tile"];
    if (v.paused) cls.push("paused");
    if (name === state.selected) cls.push("selected");
    const label = v.paused ? `PAUSED: ${v.faults.map((f) => f.kind).join(", ")}` : v.state.replace("_", " ");
    nav.append(el("button", { class: cls.join(" "), type: "button", "data-table": name,
      onclick: () => select(name) }, el("span", { class: "name", text: name }),
      el("span", { class: "tile-state", text: label })));
  }
}

// How long ago, as a person says it: "12 s ago", "3 min ago" (the table clock's own seconds
// mean nothing on the floor). The station's clock at the view, moved on since it arrived.
function agoText(v, f) {
  const elapsed = (performance.now() - (state.received[v.table] || performance.now())) / 1000;
  const ago = Math.max(0, Math.round(v.now + elapsed - f.since));
  if (ago < 90) return `${ago} s ago`;
  if (ago < 5400) return `${Math.round(ago / 60)} min ago`;
  return `${Math.round(ago / 3600)} h ago`;
}
const sameSentence = (a, b) => (a || "").toLowerCase().replace(/[^a-z0-9]+/g, " ").trim() ===
  (b || "").toLowerCase().replace(/[^a-z0-9]+/g, " ").trim();
const decisionsOf = (v) => Object.fromEntries((v.decisions || []).map((d) => [d.action, d]));

function renderAlerts() {
  const box = $("alerts");
  const key = JSON.stringify(Object.values(state.views).map((v) =>
    [v.table, v.faults.map((f) => [f.kind, f.round_id, f.since, f.detail, f.explain, f.cancel_only]),
      (v.decisions || []).filter((d) => d.allowed).map((d) => d.action)]));
  if (!changed("alerts", key)) {
    // the same faults: only the "how long ago" moves on
    for (const a of box.querySelectorAll(".alert")) {
      const v = state.views[a.dataset.table];
      const f = v && v.faults.find((x) => x.kind === a.dataset.kind);
      if (f) a.querySelector(".meta").textContent = agoText(v, f);
    }
    return;
  }
  box.replaceChildren();
  for (const [name, v] of Object.entries(state.views)) {
    for (const f of v.faults) {
      // the fault's meaning, then what is wrong here, said once: an order fault names the
      // zone and what the deal order expects there
      const a = el("div", { class: "alert", "data-kind": f.kind, "data-table": name },
        el("div", { class: "kind", text: `${name} · ${f.kind}${f.round_id ? " · " + f.round_id : ""}` }),
        el("div", { class: "meaning", text: f.meaning }));
      const detail = f.explain || (sameSentence(f.detail, f.meaning) ? "" : f.detail);
      if (detail) a.append(el("div", { class: "detail", text: detail }));
      a.append(el("div", { class: "meta", text: agoText(v, f) }),
        el("div", { class: "options", text: `You may: ${f.cancel_only ? "cancel only" : f.options}` }));
      if (state.session && state.session.role === "supervisor") {
        const row = el("div", { class: "alert-actions" });
        const offered = decisionsOf(v);
        for (const act of ["resume", "cancel_round", "end_shoe"]) {
          const d = offered[act];
          // what the table takes now, and what it refuses only while the fault's condition
          // holds (the zone being put right): the table answers that with its reason
          if (!d || !(d.allowed || d.may_clear)) continue;
          row.append(el("button", { type: "button", class: DANGER.has(act) ? "danger" : "primary",
            "data-action": act, "data-table": name, title: d.effect,
            onclick: () => decide(name, act) }, labelOf(v, act)));
        }
        a.append(row);
      }
      box.append(a);
    }
  }
}

function renderDiagram(v) {
  // each game's machine is drawn once; the selected table's is shown and lit
  for (const d of document.querySelectorAll("#diagram .game-diagram")) d.hidden = d.dataset.game !== v.game;
  for (const g of document.querySelectorAll("#diagram .game-diagram:not([hidden]) .state")) {
    g.classList.toggle("current", g.dataset.state === v.state);
  }
  for (const g of document.querySelectorAll("#diagram .game-diagram[hidden] .state.current")) g.classList.remove("current");
  set("state-label", v.state.replace("_", " ") + (v.paused ? ` (procedure at: ${v.phase.replace("_", " ")})` : ""));
  $("badge-paused").hidden = !v.paused;
  $("badge-degraded").hidden = !v.degraded;
  $("badge-closed").hidden = v.state !== "closed";
}

function renderShoe(v) {
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

function renderRound(v) {
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
  tickCountdown();
}

function tickCountdown() {
  const v = state.views[state.selected];
  if (v && v.panel === "paigow") return tickPaiGow(v);
  if (v && v.panel === "sizhidao") return tickSizhidao(v);
  const cd = $("countdown");
  if (!v || !v.round) return;
  const r = v.round;
  if (r.betting_open && v.paused) {
    cd.textContent = "betting paused";
    cd.className = "countdown";
  } else if (r.betting_open) {
    // the station's clock at the view, moved on by the time since it arrived
    const elapsed = (performance.now() - state.received[state.selected]) / 1000;
    const left = Math.max(0, r.closes_at - (v.now + elapsed));
    cd.textContent = `betting closes in ${left.toFixed(1)} s`;
    cd.className = "countdown open";
  } else {
    cd.textContent = r.finished ? (v.result && v.result.cancelled ? "cancelled" : "settled")
      : `betting closed · ${r.cards_dealt} of 12 cards dealt${r.burned ? " (+ burn)" : ""}`;
    cd.className = "countdown";
  }
}

function renderHealth(v) {
  const h = v.health;
  $("h-link").replaceChildren(el("span", { class: h.shoe.up ? "up" : "down", text: h.shoe.up ? "up" : "DOWN" }),
    h.shoe.last_frame_age_s !== null ? ` · last frame ${h.shoe.last_frame_age_s} s ago` : "");
  set("h-fps", fmt(h.shoe.frames_per_s));
  const d = Object.entries(h.shoe.dropped).filter(([, n]) => n > 0).map(([k, n]) => `${k.replace("_", " ")} ${n}`);
  set("h-dropped", d.length ? d.join(" · ") : "none");
  // the gate the shoe reported; what the station asked only when the shoe has not (yet) said so
  const reported = h.shoe.gate === null ? "not reported" : h.shoe.gate;
  const asked = h.shoe.gate_asked && h.shoe.gate_asked !== h.shoe.gate ? ` (asked ${h.shoe.gate_asked})` : "";
  set("h-gate", `${reported}${asked} · ${fmt(h.shoe.led)}${h.shoe.device_faults.length ? " · fault " + h.shoe.device_faults.join(", ") : ""}`);
  $("h-camera").replaceChildren(h.camera.fitted
    ? el("span", { class: h.camera.last_seen_age_s !== null && h.camera.last_seen_age_s < 3 ? "up" : "down",
      text: h.camera.last_seen_age_s === null ? "no frame yet" : `last frame ${h.camera.last_seen_age_s} s ago` })
    : el("span", { class: "down", text: "not fitted (degraded: shoe alone)" }));
  set("h-cam-fps", fmt(h.camera.fps));
  set("h-cam-lat", fmt(h.camera.recognition_latency_ms, " ms"));
  // the disk under storage.dir (station/live/disk.py): low below the warning level; below the
  // floor the dealer's New shoe is refused
  const disk = v.disk;
  $("h-disk").replaceChildren(disk && typeof disk.free_bytes === "number"
    ? el("span", { class: disk.low ? "down" : "up", text: `${(disk.free_bytes / 1e9).toFixed(1)} GB${disk.below_floor ? " — below the floor: no new shoe" : disk.low ? " — low" : ""}` })
    : (disk && disk.error ? el("span", { class: "down", text: disk.error }) : "not watched"));
}

// Each of the user's decisions: a button when the table takes it now (its effect beside it),
// greyed out with the reason when it does not.
function renderActions(v) {
  const box = $("action-buttons");
  if (!state.session) return;
  // the dice entry carries the two faces: the Pai Gow panel's dice control sends it
  const mine = (v.decisions || []).filter((d) => state.session.actions.includes(d.action)
    && d.action !== "dice");
  if (!changed("actions", JSON.stringify([v.table, mine]))) return;
  box.replaceChildren();
  for (const d of mine) {
    const b = el("button", { type: "button", class: DANGER.has(d.action) ? "danger" : "",
      "data-action": d.action, "data-allowed": String(d.allowed), title: d.allowed ? d.effect : d.reason,
      onclick: () => decide(v.table, d.action) }, labelOf(v, d.action));
    b.disabled = !(d.allowed || d.may_clear);
    box.append(b, el("span", { class: "why", "data-why": d.action,
      text: d.allowed ? d.effect : d.may_clear ? `once cleared: ${d.reason}` : `not now: ${d.reason}` }));
  }
}

// A decision's answer stays until the table moves on (another state) or 10 s pass: an old
// refusal must not read as the answer to what the table is doing now.
function clearStaleMessage(v) {
  const m = state.message;
  if (!m) return;
  const moved = m.table === v.table && (v.state !== m.stateAt || v.phase !== m.phaseAt);
  if (moved || performance.now() - m.at > 10000) {
    const msg = $("action-message");
    msg.className = ""; msg.textContent = "";
    state.message = null;
  }
}

async function renderRoads(name, v) {
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

async function renderRounds(name, v) {
  const last = v.history.length ? v.history[v.history.length - 1].round_id : "";
  // a pot game keeps its finished games in its own part of the view
  const games = ((v.sizhidao || {}).history || []).map((h) => h.game_id).join(",");
  const over = v.round && v.round.finished ? v.round.round_id : "";
  if (!changed("rounds", `${name}/${v.rounds_settled}/${v.history.length}/${last}/${games}/${over}`)) return;
  const { body } = await api(`/api/tables/${encodeURIComponent(name)}/rounds`);
  if (name !== state.selected || !body.rounds) return;
  const ol = $("rounds");
  ol.replaceChildren();
  for (const r of body.rounds) {
    const text = r.status !== "settled" ? `cancelled (${r.reason})`
      : r.results ? Object.entries(r.results).map(([p, o]) => `${p} ${handName(o)}`).join(" · ")
        : `pot ${r.pot} · ${Object.entries(r.payouts || {}).map(([a, n]) => `${a} ${n}`).join(" · ")}`;
    ol.append(el("li", { class: r.status, "data-round": r.round_id },
      el("a", { onclick: () => recall(name, r.round_id), text: r.round_id }), ` ${text}${r.frame ? " · frame" : ""}`));
  }
  if (state.session.role === "supervisor") refreshAudit();
}


// ------------------------------------------------------------------ one panel per game
// The table's game chooses its panels (`v.panel`: pokdeng, paigow or sizhidao): sections
// marked data-panel show for their game only; the rest (procedure, decisions, camera,
// devices, rounds, recall, audit) are every game's.
function renderPanels(v) {
  for (const sec of document.querySelectorAll("[data-panel]")) sec.hidden = sec.dataset.panel !== v.panel;
  document.body.dataset.panel = v.panel;
}

const handName = (key) => (key ? key.replace(/^pair_/, "pair ").replaceAll("_", " ") : "");
// a Pai Gow hand as the floor says it: "pair heaven · 4 points", or just "7 points"
const handText = (h) => (h.hand === "points" ? `${h.points} points` : `${handName(h.hand)} · ${h.points} points`);
// a station-clock deadline as seconds left, moved on by the time since the view arrived
function secondsLeft(v, due) {
  const elapsed = (performance.now() - (state.received[v.table] || performance.now())) / 1000;
  return Math.max(0, due - (v.now + elapsed));
}

// Pai Gow: the doors with what the camera has confirmed, the dice, the results. A door
// shows no card before it is confirmed; the station sends none.
function renderPaiGow(v) {
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
    if (hand) cell.append(el("div", { class: "hand", "data-hand": hand.hand, text: handText(hand) }));
    else cell.append(el("div", { class: "hand pending", text: door.dealt ? `${door.dealt} dealt, not confirmed` : "" }));
    if (res && res.outcome) cell.append(el("div", { class: `outcome ${res.outcome}`, "data-outcome": res.outcome, text: `${res.outcome} against the banker` }));
    box.append(cell);
  }
  if (result && result.cancelled) box.append(el("div", { class: "outcome lose", text: `cancelled: ${result.cancelled}` }));
  tickPaiGow(v);
}

function tickPaiGow(v) {
  const r = v.round, cd = $("pg-countdown");
  if (!r) return;
  if (r.betting_open && v.paused) { cd.textContent = "betting paused"; cd.className = "countdown"; }
  else if (r.betting_open) {
    cd.textContent = `betting closes in ${secondsLeft(v, r.closes_at).toFixed(1)} s`; cd.className = "countdown open";
  } else {
    cd.className = "countdown";
    cd.textContent = r.finished ? (v.result && v.result.cancelled ? "cancelled" : "settled")
      : !r.dice ? "betting closed · waiting for the dice" : `dice known · ${r.cards_dealt} of 8 cards dealt`;
  }
}

// Si Zhi Dao: seats, stacks, the pot and its layers, whose turn and until when, the tie
// round's buy-ins, the showdown. A seat's cards are backs until its showdown.
function renderSizhidao(v) {
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
  renderResults(z.history || []);
  tickSizhidao(v);
}

function tickSizhidao(v) {
  const z = v.sizhidao || {}, g = z.game, d = g ? g.deal : null, cd = $("sz-turn");
  let text = g ? "" : "no game in progress", due = null;
  if (g && g.buy_in) { text = "buy-in window"; due = g.buy_in.closes_at; }
  else if (d && d.phase === "betting" && d.turn) { text = `${d.turn} to act`; due = d.decision_due; }
  else if (d && d.phase === "arranging") { text = "arranging"; due = d.arrange_due; }
  else if (d) text = d.phase === "dealing" ? `dealing · ${Object.values(d.cards).reduce((a, b) => a + b, 0)} cards out` : d.phase;
  else if (g) text = "waiting for the deck";
  if (due !== null && due !== undefined) text += v.paused ? " · clock stopped (paused)" : ` · ${secondsLeft(v, due).toFixed(1)} s left`;
  cd.textContent = text;
  cd.className = due !== null && !v.paused ? "countdown open" : "countdown";
}

// a results history instead of a bead road: game, winner, pot, tie rounds
function renderResults(history) {
  if (!changed("sz-results", JSON.stringify(history))) return;
  const tbody = $("sz-results").querySelector("tbody");
  tbody.replaceChildren(...[...history].reverse().map((h) => el("tr", { "data-game": h.game_id, class: h.cancelled ? "cancelled" : "" },
    ...[h.game_id, h.cancelled ? `cancelled (${h.cancelled})` : (h.winners || []).join(" "), String(h.pot),
      h.cancelled ? "–" : String(h.tie_rounds)].map((x) => el("td", { text: x })))));
}

async function renderPaiGowRoads(name, v) {
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

// A pause must be noticed even from another tab or across the room: the tab's title says
// which tables are paused, and a short tone sounds when one pauses (once the browser allows
// sound, i.e. after the first click on the page).
let audio = null;
document.addEventListener("click", () => {
  if (!audio && window.AudioContext) audio = new AudioContext();
}, { once: true });
function alarm() {
  if (!audio) return;
  try {
    const o = audio.createOscillator(), g = audio.createGain();
    o.frequency.value = 880; g.gain.value = 0.15;
    o.connect(g); g.connect(audio.destination);
    o.start(); o.stop(audio.currentTime + 0.6);
  } catch (e) { /* no sound device: the screen still alarms */ }
}
function renderTitle() {
  const paused = Object.values(state.views).filter((v) => v.paused).map((v) => v.table);
  document.title = paused.length ? `⚠ PAUSED ${paused.join(", ")} · Table console` : "Table console";
}

function render() {
  renderTitle();
  renderTiles();
  renderAlerts();
  const v = state.views[state.selected];
  if (!v) return;
  $("table").dataset.table = v.table;
  $("table").dataset.state = v.state;
  renderPanels(v);
  renderDiagram(v);
  if (v.panel === "paigow") {
    renderPaiGow(v);
    renderPaiGowRoads(v.table, v).catch(console.error);
  } else if (v.panel === "sizhidao") {
    renderSizhidao(v);
  } else {
    renderShoe(v);
    renderRound(v);
    renderRoads(v.table, v).catch(console.error);
  }
  renderHealth(v);
  renderActions(v);
  clearStaleMessage(v);
  renderRounds(v.table, v).catch(console.error);
}

function select(name) {
  state.selected = name;
  $("recall-panel").hidden = true;
  render();
}

// ------------------------------------------------------------------ decisions
// `extra`: what the action carries beside its name (the dice entry's two faces)
async function decide(table, action, extra = {}) {
  const d = decisionsOf(state.views[table] || {})[action];
  if (DANGER.has(action) && !window.confirm(`${ACTION_LABELS[action]} at table ${table}?` +
    (d ? `\n\nThis will ${d.effect}.` : ""))) return;
  const msg = $("action-message");
  const what = `${table} · ${ACTION_LABELS[action]}${extra.dice ? " " + extra.dice.join(" · ") : ""}`;
  msg.className = ""; msg.textContent = `${what}…`;
  state.message = null;
  try {
    const { status, body } = await api(`/api/tables/${encodeURIComponent(table)}/actions`,
      { method: "POST", body: JSON.stringify({ action, ...extra }) });
    if (status === 200) {
      msg.className = "done"; msg.textContent = `${what}: done`;
    } else {
      msg.className = status === 409 ? "refused" : "error";
      msg.textContent = `${what}: refused: ${body.reason || body.error}`;
    }
    const after = body.view || state.views[table] || {};
    state.message = { table, at: performance.now(), stateAt: after.state, phaseAt: after.phase };
    if (body.view) { state.views[table] = body.view; state.received[table] = performance.now(); render(); }
    if (state.session.role === "supervisor") refreshAudit();
  } catch (e) {
    msg.className = "error"; msg.textContent = `${what}: ${e}`;
  }
}

// ------------------------------------------------------------------ recall
async function recall(table, roundId) {
  const { status, body } = await api(`/api/tables/${encodeURIComponent(table)}/rounds/${encodeURIComponent(roundId)}`);
  const box = $("recall");
  box.replaceChildren();
  $("recall-panel").hidden = false;
  set("recall-id", roundId);
  if (status !== 200) { box.append(el("p", { text: body.error })); return; }
  box.dataset.round = roundId;
  box.append(el("p", { text: `${body.status}${body.validated_by ? " · validated by " + body.validated_by.join(" + ") : ""}` +
    (body.cancelled ? ` · cancelled (${body.cancelled.reason}) by ${body.cancelled.user || "the table"}` : "") }));
  if (body.cards) {
    const hands = el("div", { class: "hands" });
    for (const [p, cs] of Object.entries(body.cards)) {
      const res = body.results[p];
      const cell = el("div", { class: `pos ${p}`, "data-position": p }, el("h3", { text: p }),
        el("div", { class: "cards" }, ...cs.map(cardEl)));
      if (res && res.hand) cell.append(el("div", { class: "hand", text: handText(res) }));
      if (res && res.outcome) cell.append(el("div", { class: `outcome ${res.outcome}`, text: `${res.outcome}${res.multiplier > 1 ? " ×" + res.multiplier : ""}${res.pair ? " · pair" : ""}` }));
      hands.append(cell);
    }
    box.append(hands);
  }
  if (body.dice) box.append(el("p", { class: "dice", text: `dice ${body.dice.join(" · ")} · first door ${body.first_door}` }));
  if (body.deals) {
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
  const t = body.totals;
  if (t) box.append(el("p", { class: "totals", text: `${t.bets} bets · staked ${t.staked} · deducted ${t.deducted} · returned ${t.returned} · house ${t.house_net >= 0 ? "+" : ""}${t.house_net}` }));
  const list = (title, items, line) => {
    if (!items.length) return;
    box.append(el("h3", { text: title }), el("ul", {}, ...items.map((x) => el("li", { text: line(x) }))));
  };
  list("Faults", body.faults, (f) => `${f.t.toFixed(1)} s · ${f.kind}: ${f.detail}`);
  list("Warnings", body.warnings, (w) => `${w.t.toFixed(1)} s · ${w.kind}: ${w.detail || ""}`);
  list("Decisions", body.decisions, (d) => `${d.t.toFixed(1)} s · ${d.action} by ${d.user || "?"}`);
  list("Audit", body.audit, (a) => `${new Date(a.at * 1000).toLocaleTimeString()} · ${a.user} (${a.role}) ${a.action}: ${a.outcome}${a.reason ? " — " + a.reason : ""}`);
  if (body.frame) box.append(el("h3", { text: "Camera at validation" }), el("img", { src: body.frame, alt: `camera frame of ${roundId}` }));
  if (state.session.role === "supervisor") {  // the evidence pack is for supervisors (audited)
    box.append(el("p", {}, el("a", { id: "evidence-pack", href: `/api/tables/${encodeURIComponent(table)}/rounds/${encodeURIComponent(roundId)}/evidence.zip`, text: "Evidence pack (zip) for a dispute" })));
  }
}

async function refreshAudit() {
  const { status, body } = await api("/api/audit?limit=30");
  if (status !== 200) return;
  $("audit-panel").hidden = false;
  const tbody = $("audit").querySelector("tbody");
  tbody.replaceChildren(...body.entries.map((a) => el("tr", { "data-outcome": a.outcome },
    ...[new Date(a.at * 1000).toLocaleTimeString(), `${a.user} (${a.role || "?"})`, a.table || "", a.action,
      a.round_id || "", a.outcome, a.reason || ""].map((x) => el("td", { text: x })))));
}

// ------------------------------------------------------------------ live stream
function connect() {
  const es = new EventSource("/api/events");
  const pill = $("link-status");
  es.onopen = () => { pill.textContent = "live"; pill.className = "pill ok"; };
  es.onerror = () => {
    pill.textContent = "reconnecting…"; pill.className = "pill bad";
    // a stream the station ended for good (session over): find out, and go to the login
    if (es.readyState === EventSource.CLOSED) {
      api("/api/session").then(() => setTimeout(connect, 2000)).catch(() => {});
    }
  };
  es.addEventListener("view", (ev) => {
    const v = JSON.parse(ev.data);
    const before = state.views[v.table];
    state.views[v.table] = v;
    state.received[v.table] = performance.now();
    // the first table of the station's list is shown first, whichever speaks first
    if (!state.selected && v.table === state.session.tables[0]) state.selected = v.table;
    if (before && !before.paused && v.paused) {
      alarm();
      if (state.session.role === "supervisor") refreshAudit();
    }
    render();
  });
}

// ------------------------------------------------------------------ the camera
// The overhead camera's latest picture, a few times a second, with its zones and what the
// viewer may know of each (identities only once the table has revealed them; the picture's
// unrevealed zones come blurred from the station).
let cameraBusy = false;
async function refreshCamera() {
  const name = state.selected;
  if (!name || cameraBusy || document.hidden) return;
  cameraBusy = true;
  try {
    const { status, body } = await api(`/api/tables/${encodeURIComponent(name)}/camera`);
    if (status !== 200 || name !== state.selected) return;
    const view = $("camera-view");
    if (!body.available) {
      view.hidden = true; set("camera-note", body.reason); set("camera-age", "");
      $("camera-readings").replaceChildren();
      return;
    }
    set("camera-note", body.warning ? `camera: ${body.warning}` : "");
    $("camera-note").classList.toggle("warning", Boolean(body.warning));
    set("camera-age", `picture ${body.age_s < 1 ? "under a second" : Math.round(body.age_s) + " s"} old`);
    const img = $("camera-img");
    await new Promise((resolve) => {
      img.onload = resolve; img.onerror = resolve;
      img.src = `${body.frame}?n=${Date.now()}`;
    });
    view.hidden = false;
    const v = state.views[name] || {};
    const wrong = new Set((v.faults || []).flatMap((f) => f.zones || []));
    const svg = $("camera-zones");
    const ns = "http://www.w3.org/2000/svg";
    svg.replaceChildren();
    for (const l of view.querySelectorAll(".zone-label")) l.remove();
    const items = [];
    for (const z of body.zones) {
      const poly = document.createElementNS(ns, "polygon");
      poly.setAttribute("points", z.polygon.map(([x, y]) => `${x},${y}`).join(" "));
      poly.setAttribute("class", wrong.has(z.name) ? "wrong" : z.shown ? "revealed" : "");
      poly.dataset.zone = z.name;
      svg.append(poly);
      const cx = z.polygon.reduce((s, p) => s + p[0], 0) / z.polygon.length;
      const cy = z.polygon.reduce((s, p) => s + p[1], 0) / z.polygon.length;
      // positioned through the CSSOM: the page's CSP allows no inline style attributes
      const label = el("span", { class: "zone-label", "data-zone": z.name, text: `${z.name}: ${z.count}` });
      label.style.left = `${(cx * 100).toFixed(2)}%`;
      label.style.top = `${(cy * 100).toFixed(2)}%`;
      view.append(label);
      const expect = z.expected === null || z.expected === undefined ? "" : ` (deal order: ${z.expected})`;
      items.push(el("li", { "data-zone": z.name }, el("b", { text: z.name }), ` ${z.summary}${expect}`));
    }
    $("camera-readings").replaceChildren(...items);
  } catch (e) {
    console.error(e);
  } finally {
    cameraBusy = false;
  }
}

async function main() {
  const { body } = await api("/api/session");
  const order = ["new_shoe", "open_betting", "confirm_shuffle", "resume", "cancel_round", "end_shoe", "close_table"];
  state.session = { ...body, actions_ordered: order.filter((a) => body.actions.includes(a)) };
  set("who", `${body.user} · ${body.role}`);
  document.body.dataset.role = body.role;
  $("logout").addEventListener("click", async () => {
    await api("/api/logout", { method: "POST", body: "{}" });
    window.location = "/login";
  });
  $("recall-close").addEventListener("click", () => { $("recall-panel").hidden = true; });
  $("pg-dice-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const form = ev.target;
    if (!form.reportValidity()) return;
    const faces = [$("pg-die-1"), $("pg-die-2")].map((i) => Number(i.value));
    decide(form.dataset.table, "dice", { dice: faces });
  });
  connect();
  setInterval(tickCountdown, 200);
  setInterval(refreshCamera, 300);
}

main();
