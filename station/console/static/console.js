// The floor supervisor's console. Live from the station's event stream (/api/events): one
// `view` event whenever a table changes. Everything shown comes from the server's public view,
// which never holds a face-down or burn card; this page only draws it.
"use strict";

const ACTION_LABELS = {
  new_shoe: "New shoe", open_betting: "Open betting",
  confirm_shuffle: "Confirm shuffle", resume: "Resume", cancel_round: "Cancel round",
  end_shoe: "End shoe", close_table: "Close table",
};
const DANGER = new Set(["cancel_round", "end_shoe", "close_table"]);
// Each game's panel comes from its package (/games/<game>/panel.js, loaded before this
// script) and registers itself here by its panel's name: `render(v, ui)` on each view of the
// selected table, and optionally `tick(v, ui)` (its clocks), `setup(ui)` (once),
// `recall(body, box, ui)` (its part of a recall), `labels` (its words for the decisions),
// `ownActions` (actions its panel sends itself, not plain buttons) and `roundsKey(v)` (what
// else changes the list of rounds).
const panels = window.stationPanels || {};
const panelOf = (v) => (v && v.panel && panels[v.panel]) || {};
const labelOf = (v, action) => (panelOf(v).labels || {})[action] || ACTION_LABELS[action]
  || action.replaceAll("_", " ");
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

// Off to the login page, once: the logout button, a timer's request answered 401 and the event
// stream's end can all find the session gone at the same moment, and a second navigation
// started while the first is under way aborts the first.
let leaving = false;
function toLogin() {
  if (leaving) return;
  leaving = true;
  window.location = "/login";
  // a navigation stopped by the user (or failed) leaves this page: let the next try go
  setTimeout(() => { leaving = false; }, 5000);
}

async function api(path, options = {}) {
  const opts = { credentials: "same-origin", ...options, headers: { ...(options.headers || {}) } };
  if (opts.method && opts.method !== "GET") {
    opts.headers["X-CSRF-Token"] = state.session.csrf;
    opts.headers["Content-Type"] = "application/json";
  }
  const resp = await fetch(path, opts);
  if (resp.status === 401) { toLogin(); throw new Error("logged out"); }
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

function tickCountdown() {
  const v = state.views[state.selected];
  const p = panelOf(v);
  if (v && p.tick) p.tick(v, ui);
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
  // a studio table reserving in the studio ledger (station/live/reservations.py): while the
  // ledger does not answer, its bets are refused or taken on the table's credit
  const r = v.reservations;
  $("h-ledger").replaceChildren(!r ? "not reserving"
    : r.down ? el("span", { class: "down", text: `not answering: ${r.refused_while_down} bets refused`
        + (r.policy === "credit" ? `, ${r.on_credit_bets} on table credit (${r.on_credit})` : "") })
    : el("span", { class: "up", text: `answering (when down: ${r.policy})` }));
}

// Each of the user's decisions: a button when the table takes it now (its effect beside it),
// greyed out with the reason when it does not.
function renderActions(v) {
  const box = $("action-buttons");
  if (!state.session) return;
  // an action that carries more than its name is sent by its game's panel (its own control)
  const own = panelOf(v).ownActions || [];
  const mine = (v.decisions || []).filter((d) => state.session.actions.includes(d.action)
    && !own.includes(d.action));
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

async function renderRounds(name, v) {
  const last = v.history.length ? v.history[v.history.length - 1].round_id : "";
  // a game may keep its finished rounds (or games) in its own part of the view
  const p = panelOf(v);
  const games = p.roundsKey ? p.roundsKey(v) : "";
  const over = v.round && v.round.finished ? v.round.round_id : "";
  if (!changed("rounds", `${name}/${v.rounds_settled}/${v.history.length}/${last}/${games}/${over}`)) return;
  const { body } = await api(`/api/tables/${encodeURIComponent(name)}/rounds`);
  if (name !== state.selected || !body.rounds) return;
  const ol = $("rounds");
  ol.replaceChildren();
  for (const r of body.rounds) {
    // the game's words for a round that is over (its panel's roundText), or each position's outcome
    const text = r.status !== "settled" ? `cancelled (${r.reason})`
      : p.roundText ? p.roundText(r, ui)
        : Object.entries(r.results || {}).map(([pos, o]) => `${pos} ${handName(o)}`).join(" · ");
    ol.append(el("li", { class: r.status, "data-round": r.round_id },
      el("a", { onclick: () => recall(name, r.round_id), text: r.round_id }), ` ${text}${r.frame ? " · frame" : ""}`));
  }
  if (state.session.role === "supervisor") refreshAudit();
}


// ------------------------------------------------------------------ one panel per game
// The table's game chooses its panels (`v.panel`, drawn by the game's own panel script):
// sections marked data-panel show for their game only; the rest (procedure, decisions,
// camera, devices, rounds, recall, audit) are every game's.
function renderPanels(v) {
  for (const sec of document.querySelectorAll("[data-panel]")) sec.hidden = sec.dataset.panel !== v.panel;
  document.body.dataset.panel = v.panel;
}

// a game's hand name as words: its underscores are spaces
const handName = (key) => (key ? key.replaceAll("_", " ") : "");
// a hand with its points: "<hand> · 4 points", or just "7 points" for a hand of points alone
const handText = (h) => (h.hand === "points" ? `${h.points} points` : `${handName(h.hand)} · ${h.points} points`);
// a station-clock deadline as seconds left, moved on by the time since the view arrived
function secondsLeft(v, due) {
  const elapsed = (performance.now() - (state.received[v.table] || performance.now())) / 1000;
  return Math.max(0, due - (v.now + elapsed));
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
  const p = panelOf(v);
  if (p.render) p.render(v, ui);
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
// `extra`: what the action carries beside its name (fields a game's panel sends)
async function decide(table, action, extra = {}) {
  const d = decisionsOf(state.views[table] || {})[action];
  if (DANGER.has(action) && !window.confirm(`${labelOf(state.views[table], action)} at table ${table}?` +
    (d ? `\n\nThis will ${d.effect}.` : ""))) return;
  const msg = $("action-message");
  const fields = Object.values(extra).flat();
  const what = `${table} · ${labelOf(state.views[table], action)}${fields.length ? " " + fields.join(" · ") : ""}`;
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
  // the game's own part of the recall (its dice, its deals...)
  const game = panelOf(state.views[table]);
  if (game.recall) game.recall(body, box, ui);
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
  // every frame kept at validation: the round's, or each deal's of a game
  const frames = body.frames || [];
  if (frames.length) box.append(el("h3", { text: "Camera at validation" }));
  for (const f of frames) {
    box.append(el("figure", { class: "recall-frame", "data-frame": f.name },
      el("img", { src: f.url, alt: `camera frame of ${f.name}` }), el("figcaption", { text: f.name })));
  }
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
      // (a station out of reach is tried again: the pill says so meanwhile)
      api("/api/session").then(() => setTimeout(connect, 2000))
        .catch(() => { if (!leaving) setTimeout(connect, 2000); });
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
    await api("/api/logout", { method: "POST", body: "{}" }).catch(() => {});
    toLogin();
  });
  $("recall-close").addEventListener("click", () => { $("recall-panel").hidden = true; });
  for (const p of Object.values(panels)) if (p.setup) p.setup(ui);
  connect();
  setInterval(tickCountdown, 200);
  setInterval(refreshCamera, 300);
}

// what a game's panel draws with: the console's own helpers and state
const ui = { el, $, set, fmt, api, cardEl, backEl, changed, decide, decisionsOf, handName, handText,
  secondsLeft, state };

// a station out of reach while the page loads: load it again in a moment, not a dead page
main().catch(() => { if (!leaving) setTimeout(() => window.location.reload(), 3000); });
