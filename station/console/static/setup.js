// The table setup page (station/console/setup.py): the camera's picture with its zones as an
// SVG in the frame's own pixels; dragging a zone or a corner reads the picture again with the
// new zones (POST preview) and shows each zone's reading and pixels per QR module.
"use strict";
const SVGNS = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);
const st = { csrf: null, table: null, layout: null, zones: {}, drag: null, busy: false, again: false };

function el(tag, attrs = {}, ns = null) {
  const e = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") e.textContent = v; else e.setAttribute(k, v);
  }
  return e;
}

// Off to the login page, once (a second navigation started meanwhile would abort the first).
let leaving = false;
function toLogin() {
  if (leaving) return;
  leaving = true;
  window.location = "/login";
  setTimeout(() => { leaving = false; }, 5000);  // a navigation stopped: let the next go
}

async function api(path, body) {
  const opts = { credentials: "same-origin", headers: {} };
  if (body !== undefined) {
    opts.method = "POST";
    opts.headers["Content-Type"] = "application/json";
    opts.headers["X-CSRF-Token"] = st.csrf;
    opts.body = JSON.stringify(body);
  }
  const resp = await fetch(path, opts);
  if (resp.status === 401) { toLogin(); throw new Error("logged out"); }
  const out = await resp.json().catch(() => ({ error: `HTTP ${resp.status}` }));
  return { status: resp.status, body: out };
}

const base = () => `/api/setup/${encodeURIComponent(st.table)}`;

function point(evt) {
  const svg = $("view");
  const p = svg.createSVGPoint();
  p.x = evt.clientX; p.y = evt.clientY;
  const q = p.matrixTransform(svg.getScreenCTM().inverse());
  const L = st.layout;
  return [Math.max(0, Math.min(L.width, Math.round(q.x))), Math.max(0, Math.min(L.height, Math.round(q.y)))];
}

function draw() {
  const svg = $("view");
  const L = st.layout;
  svg.setAttribute("viewBox", `0 0 ${L.width} ${L.height}`);
  svg.replaceChildren();
  svg.append(el("image", { href: `${base()}/frame.jpg?t=${Date.now()}`, x: 0, y: 0, width: L.width, height: L.height }, SVGNS));
  for (const [name, pts] of Object.entries(st.zones)) {
    const poly = el("polygon", { class: "zone", "data-zone": name, points: pts.map((p) => p.join(",")).join(" ") }, SVGNS);
    poly.addEventListener("pointerdown", (e) => startDrag(e, name, null));
    svg.append(poly);
    const [cx, cy] = pts.reduce((a, p) => [a[0] + p[0] / pts.length, a[1] + p[1] / pts.length], [0, 0]);
    svg.append(el("text", { class: "label", x: cx - 20, y: cy + 12, text: name }, SVGNS));
    pts.forEach((p, i) => {
      const c = el("circle", { class: "corner", "data-zone": name, "data-corner": i, cx: p[0], cy: p[1], r: 14 }, SVGNS);
      c.addEventListener("pointerdown", (e) => startDrag(e, name, i));
      svg.append(c);
    });
  }
}

function startDrag(evt, zone, corner) {
  evt.preventDefault();
  evt.stopPropagation();
  $("view").setPointerCapture(evt.pointerId);
  st.drag = { zone, corner, from: point(evt), start: st.zones[zone].map((p) => p.slice()) };
}

function moveDrag(evt) {
  const d = st.drag;
  if (!d) return;
  const [x, y] = point(evt);
  const dx = x - d.from[0], dy = y - d.from[1];
  const L = st.layout;
  const clamp = (v, hi) => Math.max(0, Math.min(hi, v));
  st.zones[d.zone] = d.start.map((p, i) => (d.corner === null || d.corner === i)
    ? [clamp(p[0] + dx, L.width), clamp(p[1] + dy, L.height)] : p.slice());
  const svg = $("view");
  const pts = st.zones[d.zone];
  svg.querySelector(`polygon[data-zone="${d.zone}"]`).setAttribute("points", pts.map((p) => p.join(",")).join(" "));
  svg.querySelectorAll(`circle[data-zone="${d.zone}"]`).forEach((c) => {
    const p = pts[Number(c.getAttribute("data-corner"))];
    c.setAttribute("cx", p[0]); c.setAttribute("cy", p[1]);
  });
}

function endDrag() {
  if (!st.drag) return;
  st.drag = null;
  draw();
  preview();
}

async function preview() {
  if (st.busy) { st.again = true; return; }
  st.busy = true;
  try {
    const { status, body } = await api(`${base()}/preview`, { zones: st.zones });
    if (status !== 200) { $("scale-note").textContent = body.error; $("scale-note").className = "error"; return; }
    const rows = Object.entries(body.zones).map(([name, z]) => {
      const tr = el("tr", { "data-zone": name });
      const reads = z.reading === null ? "not readable (covered or unknown back)" : (z.reading.length ? z.reading.join(" ") : "empty");
      tr.append(el("td", { text: name }), el("td", { class: "reading", text: reads }),
        el("td", { class: z.ok ? "good px" : "bad px", text: z.px_per_module.toFixed(2) }),
        el("td", { class: "seen", text: z.px_per_module_seen === null ? "–" : z.px_per_module_seen.toFixed(2) }));
      const poly = $("view").querySelector(`polygon[data-zone="${name}"]`);
      if (poly) poly.classList.toggle("coarse", !z.ok);
      return tr;
    });
    $("zones").querySelector("tbody").replaceChildren(...rows);
    const coarse = Object.entries(body.zones).filter(([, z]) => !z.ok).map(([n]) => n);
    $("scale-note").textContent = coarse.length ? `below 3 px per QR module: ${coarse.join(", ")}` : "every zone at 3 px per QR module or more";
    $("scale-note").className = coarse.length ? "error" : "";
  } finally {
    st.busy = false;
    if (st.again) { st.again = false; preview(); }
  }
}

function showCamera(c) {
  const dl = $("camera");
  const rows = [["size", `${c.width}×${c.height} px, ${c.mm_per_px} mm per px`],
    ["config", c.camera_config || "embedded layout (not saveable)"],
    ["config version", String(c.config_version) + (c.pending_reload ? " (a saved config waits for no round in play)" : "")],
    ["status", c.status && c.status.message ? c.status.message : "ok"]];
  const ctl = Object.entries(c.controls || {});
  if (!ctl.length) rows.push(["controls", "none fixed ([controls] in the camera config)"]);
  for (const [k, v] of ctl) rows.push([k, `asked ${v.asked}, camera reports ${v.reported === null ? "nothing" : v.reported}${v.holds ? "" : " (not applied)"}`]);
  dl.replaceChildren(...rows.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: v })]));
  const kinds = c.still_kinds || [];
  for (const b of document.querySelectorAll("button[data-still]")) b.hidden = !kinds.includes(b.getAttribute("data-still"));
  $("stills").textContent = `stills: ${c.stills.felt} felt, ${c.stills.back} face-down` + (kinds.includes("dice") ? `, ${c.stills.dice} dice tray` : "");
}

async function load() {
  const { status, body } = await api(base());
  if (status !== 200) { $("picture-note").textContent = body.error; $("picture-note").className = "error"; return; }
  st.layout = body;
  st.zones = JSON.parse(JSON.stringify(body.zones));
  showCamera(body);
  draw();
  preview();
}

async function still(kind) {
  const { status, body } = await api(`${base()}/stills`, { kind });
  if (status !== 200) { $("stills").textContent = body.error; $("stills").className = "error"; return; }
  $("stills").className = "";
  $("stills").textContent = `captured ${body.what} (${body.still}); stills: ${body.stills.felt} felt, ${body.stills.back} face-down, ${body.stills.dice} dice tray`
    + (body.readings !== undefined ? `; the camera reads ${JSON.stringify(body.readings)}` : "");
}

async function calibrateNow() {
  const { status, body } = await api(`${base()}/calibrate`, {});
  const p = $("calibration");
  p.className = status === 200 ? "" : "error";
  p.textContent = status === 200
    ? `felt (B,G,R) ${body.calibration.felt.bgr.join(",")}; ${body.back}${body.warnings.length ? "; " + body.warnings.join("; ") : ""} — saved with the next save`
    : body.error;
}

async function save() {
  const { status, body } = await api(`${base()}/save`, { zones: st.zones });
  const p = $("saved");
  p.className = status === 200 ? "" : "error";
  p.textContent = status === 200
    ? `saved ${body.saved}${body.calibration_saved ? " with the calibration" : ""}; the previous file is ${body.previous}; the station reads with it ${body.applies}`
    : body.error;
  if (status === 200) setTimeout(load, 500);
}

async function start() {
  const { status, body } = await api("/api/setup");
  if (status !== 200) { $("picture-note").textContent = body.error; $("picture-note").className = "error"; return; }
  st.csrf = body.csrf;
  $("who").textContent = `${body.user} (${body.role})`;
  const sel = $("table");
  sel.replaceChildren(...body.tables.map((t) => el("option", { value: t, text: t })));
  if (!body.tables.length) { $("picture-note").textContent = "no table with a camera on this console"; return; }
  st.table = body.tables[0];
  sel.addEventListener("change", () => { st.table = sel.value; load(); });
  const svg = $("view");
  svg.addEventListener("pointermove", moveDrag);
  svg.addEventListener("pointerup", endDrag);
  svg.addEventListener("pointercancel", endDrag);
  document.querySelectorAll("button[data-still]").forEach((b) => b.addEventListener("click", () => still(b.getAttribute("data-still"))));
  $("calibrate").addEventListener("click", calibrateNow);
  $("save").addEventListener("click", save);
  load();
}

document.addEventListener("DOMContentLoaded", start);
