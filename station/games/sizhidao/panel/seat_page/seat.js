// The seat page: one account's view of a Si Zhi Dao table and its actions.
// The seat token comes in the page's fragment (#t=...), never in a URL the server sees; every
// request carries it as `Authorization: Seat <token>`. The event stream is read with fetch
// (EventSource cannot send that header). Everything shown is text (textContent), never HTML.
"use strict";

const SEATS = ["S1", "S2", "S3", "S4", "S5", "S6", "S7"];
const token = new URLSearchParams(location.hash.slice(1)).get("t") || "";
history.replaceState(null, "", location.pathname);  // the token leaves the address bar
const auth = { Authorization: "Seat " + token };
let view = null;
// The station's time as last heard (a view's or a `now` event's `now`, seconds) and this
// page's clock then. The countdowns run on the station's time: between two hearings the page
// carries it on with its own clock, at most AHEAD_MAX_S (the stream says the time each second),
// so a station whose time stands (paused by work, a test's clock) is not outrun by the page.
let heardNow = null;
let heardAt = 0;
const AHEAD_MAX_S = 1.5;
let front = [];  // the cards picked for the front group
let arrangeDeal = null;

const $ = (id) => document.getElementById(id);

function stationNow() {
  const ahead = Math.min(Math.max(0, performance.now() / 1000 - heardAt), AHEAD_MAX_S);
  return heardNow + ahead;
}

function heard(now) {
  heardNow = now;
  heardAt = performance.now() / 1000;
}

function cardEl(name) {
  const el = document.createElement("span");
  el.className = "card";
  if (name === "??" || name === "back") {
    el.classList.add("back");
    el.title = "face down";
  } else {
    el.textContent = name;
    if (name.endsWith("H") || name.endsWith("D")) el.classList.add("red");
  }
  el.dataset.card = name;
  return el;
}

function setStatus(text) { $("status").textContent = text; }

function answer(text, refused) {
  const el = $("answer");
  el.textContent = text;
  el.classList.toggle("refused", !!refused);
}

async function send(action, fields) {
  const body = JSON.stringify({ action, ...(fields || {}) });
  let r;
  try {
    r = await fetch("/v1/seat/actions", {
      method: "POST", headers: { ...auth, "Content-Type": "application/json" }, body,
    });
  } catch (e) {
    answer(action + ": the table could not be reached", true);
    return null;
  }
  const data = await r.json().catch(() => ({}));
  if (r.status === 200) {
    answer(action + ": done", false);
  } else if (r.status === 409) {
    answer(action + " refused: " + (data.reason || "?"), true);
  } else {
    answer(action + ": " + (data.reason || ("error " + r.status)), true);
  }
  return data;
}

function mySeat() { return view && view.you ? view.you.seat : null; }

function setView(v) {
  view = v;
  heard(v.now);
  render();
}

function render() {
  if (!view) return;
  const you = view.you || {};
  const seat = you.seat;
  const game = view.game;
  const deal = game ? game.deal : null;
  $("table").textContent = view.table || "";
  $("you-account").textContent = you.account || "";
  $("you-seat").textContent = seat ? "at " + seat : "(not seated)";
  const mine = seat && view.seats[seat] ? view.seats[seat] : null;
  $("you-stack").textContent = mine ? mine.stack : "–";
  $("pot").textContent = game ? game.pot : "–";
  $("level").textContent = deal && deal.level != null ? deal.level : "–";
  $("you-total").textContent = deal && seat && deal.totals[seat] != null ? deal.totals[seat] : "–";
  const state = view.paused ? "paused"
    : game && game.buy_in ? "tie round: buy-in window"
    : deal && deal.phase !== "done" ? deal.phase : view.state;
  $("phase").textContent = "(" + state + (game ? " · " + game.game_id : "") + ")";

  const cards = $("your-cards");
  cards.replaceChildren(...(you.cards || []).map(cardEl));

  // sit / leave between games
  $("sit-panel").hidden = !!seat || !!game;
  $("leave-panel").hidden = !seat || !!game;
  const free = SEATS.filter((s) => !view.seats[s]);
  const sel = $("sit-seat");
  const keep = sel.value;
  sel.replaceChildren(...free.map((s) => { const o = document.createElement("option"); o.value = o.textContent = s; return o; }));
  if (free.includes(keep)) sel.value = keep;

  // betting: my turn
  const myTurn = !!(deal && deal.phase === "betting" && deal.turn && deal.turn === seat && !view.paused);
  $("bet-panel").hidden = !myTurn;
  if (myTurn) {
    const opening = !deal.opened;
    $("bet").disabled = !opening;
    $("raise").disabled = opening;
    $("call").disabled = opening;
    const amount = $("amount");
    const min = deal.level + view.ante;
    if (!amount.value || Number(amount.value) < min) amount.value = min;
    amount.min = min;
  }

  // arranging: mine, not yet sent
  const inDeal = deal && seat && deal.contestants.includes(seat) && !deal.folded.includes(seat);
  const arranging = !!(deal && deal.phase === "arranging" && inDeal && !deal.arranged.includes(seat)
    && (you.cards || []).length === 4 && !view.paused);
  $("arrange-panel").hidden = !arranging;
  if (arranging) {
    if (arrangeDeal !== deal.deal_id) { arrangeDeal = deal.deal_id; front = []; }
    const pick = $("arrange-cards");
    pick.replaceChildren(...you.cards.map((c) => {
      const el = cardEl(c);
      if (front.includes(c)) el.classList.add("front");
      el.addEventListener("click", () => {
        front = front.includes(c) ? front.filter((x) => x !== c) : (front.length < 2 ? [...front, c] : front);
        render();
      });
      return el;
    }));
    const back = you.cards.filter((c) => !front.includes(c));
    $("front-shown").textContent = front.length ? front.join(" ") : "–";
    $("back-shown").textContent = front.length === 2 ? back.join(" ") : "–";
    $("arrange").disabled = front.length !== 2;
  }

  // a tie round's buy-in window
  const w = game ? game.buy_in : null;
  const eligible = !!(w && seat && w.eligible.includes(seat) && !(seat in w.answers) && !view.paused);
  $("buyin-panel").hidden = !eligible;
  if (eligible) $("price").textContent = w.price;

  // the seats
  const rows = SEATS.filter((s) => view.seats[s] || (deal && deal.contestants.includes(s))).map((s) => {
    const info = view.seats[s] || {};
    const tr = document.createElement("tr");
    if (deal && deal.turn === s && deal.phase === "betting") tr.className = "turn";
    const cells = [s, info.account || "", info.stack != null ? info.stack : ""];
    cells.push(deal && deal.totals[s] != null ? deal.totals[s] : "");
    for (const text of cells) { const td = document.createElement("td"); td.textContent = text; tr.append(td); }
    const cardsTd = document.createElement("td");
    const shown = deal && deal.showdown && deal.showdown[s];
    if (shown) {
      cardsTd.append(...shown.front.map(cardEl), document.createTextNode(" / "), ...shown.back.map(cardEl));
    } else if (deal && deal.cards[s]) {
      cardsTd.textContent = deal.cards[s] + " face down";
    }
    tr.append(cardsTd);
    const note = document.createElement("td");
    const notes = [];
    if (view.leader === s) notes.push("leader");
    if (deal && deal.folded.includes(s)) notes.push("folded");
    if (deal && deal.all_in.includes(s)) notes.push("all-in");
    if (info.connected === false) notes.push("disconnected");
    if (s === seat) notes.push("you");
    note.textContent = notes.join(", ");
    tr.append(note);
    return tr;
  });
  $("seats").tBodies[0].replaceChildren(...rows);

  // the deal's layers once settled, and what a tie round carries
  const layers = deal && deal.layers && deal.layers.length ? deal.layers : [];
  const carried = game && game.carried ? game.carried : [];
  $("layers-panel").hidden = !layers.length && !carried.length;
  $("layers").replaceChildren(...(layers.length ? layers.map((la) => {
    const li = document.createElement("li");
    li.textContent = la.amount + " (" + la.contestants.join(" ") + "): "
      + (la.winner ? la.winner + " wins" : "tied " + la.tied.join(" ") + ", to a tie round");
    return li;
  }) : carried.map((la) => {
    const li = document.createElement("li");
    li.textContent = la.amount + " carried, tied " + la.tied.join(" ");
    return li;
  })));

  $("history").replaceChildren(...(view.history || []).slice(-8).reverse().map((h) => {
    const li = document.createElement("li");
    li.textContent = h.cancelled
      ? h.game_id + ": cancelled (" + h.cancelled + ")"
      : h.game_id + ": " + (h.winners || []).join(", ") + " won " + h.pot
        + (h.tie_rounds ? " after " + h.tie_rounds + " tie round(s)" : "");
    return li;
  }));
  tick();
}

function countdown(el, due) {
  if (due == null || heardNow == null) { el.textContent = ""; return; }
  const left = Math.max(0, due - stationNow());
  el.textContent = left.toFixed(1) + " s";
}

function tick() {
  if (!view || !view.game) return;
  const deal = view.game.deal;
  countdown($("decision-clock"), deal ? deal.decision_due : null);
  countdown($("arrange-clock"), deal ? deal.arrange_due : null);
  countdown($("buyin-clock"), view.game.buy_in ? view.game.buy_in.closes_at : null);
}

async function refresh() {
  const r = await fetch("/v1/seat/view", { headers: auth });
  if (r.ok) setView(await r.json());
}

async function listen() {
  // the event stream; on a break, read the view again and reconnect
  for (;;) {
    try {
      const r = await fetch("/v1/seat/stream", { headers: auth });
      if (r.status === 401) { setStatus("this seat link is not valid (ask for a new one)"); return; }
      if (!r.ok || !r.body) throw new Error("stream " + r.status);
      setStatus("connected");
      const reader = r.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let cut;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          let event = "message", data = "";
          for (const line of block.split("\n")) {
            if (line.startsWith("event: ")) event = line.slice(7);
            else if (line.startsWith("data: ")) data += line.slice(6);
          }
          if (event === "view" && data) setView(JSON.parse(data));
          else if (event === "now" && data) { heard(JSON.parse(data).now); tick(); }
        }
      }
    } catch (e) {
      setStatus("reconnecting…");
    }
    await new Promise((ok) => setTimeout(ok, 1000));
  }
}

function amount() { return Number($("amount").value); }

// a new seat link opened in this tab: start again with its token
window.addEventListener("hashchange", () => location.reload());

document.addEventListener("DOMContentLoaded", () => {
  if (!token) { setStatus("open this page with the seat link you were given"); return; }
  $("sit").addEventListener("click", () => send("sit", { seat: $("sit-seat").value }));
  $("leave").addEventListener("click", () => send("leave"));
  $("bet").addEventListener("click", () => send("bet", { amount: amount() }));
  $("raise").addEventListener("click", () => send("raise", { amount: amount() }));
  $("call").addEventListener("click", () => send("call"));
  $("all_in").addEventListener("click", () => send("all_in"));
  $("fold").addEventListener("click", () => send("fold"));
  $("arrange").addEventListener("click", () => {
    const back = view.you.cards.filter((c) => !front.includes(c));
    send("arrange", { front, back });
  });
  $("buy_in").addEventListener("click", () => send("buy_in"));
  $("decline").addEventListener("click", () => send("decline"));
  setInterval(tick, 100);
  refresh().then(listen);
});
