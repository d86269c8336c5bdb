"""The evidence pack's `index.html`: one self-contained page a floor manager reads offline
(styles inline, the frames embedded, no network), made from `evidence.json`'s content."""

from __future__ import annotations

import base64
import json
from html import escape
from pathlib import Path
from typing import Any

STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#111}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;
vertical-align:top;text-align:left}th{background:#f3f3f3}.bad{color:#a00;font-weight:bold}
.ok{color:#070;font-weight:bold}code{font-size:12px}img{max-width:100%;border:1px solid #999}
.kind-shoe{color:#555}.kind-supervisor,.kind-dealer{background:#fff6d8}
.kind-station_fault{background:#fde2e2}
"""

# the one script: the timeline's shoe and camera lines can be hidden to read the decisions
SCRIPT = """
document.getElementById('only-decisions').addEventListener('change', function (e) {
  var rows = document.querySelectorAll('#timeline tr[data-kind]');
  for (var i = 0; i < rows.length; i++) {
    var k = rows[i].getAttribute('data-kind');
    rows[i].style.display = (e.target.checked && (k === 'shoe' || k === 'camera' || k === 'tick')) ? 'none' : '';
  }
  document.getElementById('shown').textContent = String(
    document.querySelectorAll('#timeline tr[data-kind]:not([style*="none"])').length);
});
"""


def _j(v: Any) -> str:
    return escape(json.dumps(v, ensure_ascii=False))


def render(evidence: dict[str, Any], frames: list[Path]) -> str:
    e = evidence
    proof = e["proof"]
    chain = proof["chain"]
    ok_chain = chain["through_round"]
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>Evidence: round {escape(e['round_id'])}</title><style>{STYLE}</style></head><body>",
        f"<h1>Round {escape(e['round_id'])} — table {escape(e['table'])} ({escape(e['game'])})</h1>",
        f"<p>Journal {escape(str(e['journal_id']))}, entries {e['entries'][0]}–{e['entries'][1]}.</p>",
        "<h2>Proof</h2><ul>",
        f"<li>Hash chain from the journal's genesis to the round's last entry: "
        f"<span class='{'ok' if ok_chain else 'bad'}' id='chain-verdict'>"
        f"{'intact' if ok_chain else 'NOT intact'}</span> "
        f"(whole journal: {_j(chain['first_bad']) if chain['first_bad'] else 'intact'}; "
        f"{chain['entries']} entries, {chain['checkpoints']} checkpoints; ledger checkpoint at "
        f"entry {escape(str(chain['ledger_checkpoint']))}; chain head at the round's end "
        f"<code>{escape(str(chain['head_at_round_end']))}</code>; checked with the key from "
        f"<span id='chain-key'>{escape(str(chain.get('key', 'the key given')))}</span>)</li>",
        f"<li>Replay of the journal reproduces the round's records exactly: "
        f"<span class='{'ok' if proof['replay_equal'] else 'bad'}' id='replay-verdict'>"
        f"{'yes' if proof['replay_equal'] else 'NO'}</span> ({escape(proof['replay'])})</li>",
        f"<li>The ledger's postings agree with the bets and the payouts the chained records "
        f"name: "
        f"<span class='{'bad' if proof.get('ledger_agrees') is False else 'ok'}' "
        f"id='ledger-verdict'>"
        f"{ {True: 'yes', False: 'NO', None: 'not checked (no ledger given)'}[proof.get('ledger_agrees')]}"
        f"</span></li></ul>",
        "<h2>Result</h2>",
    ]
    parts += [f"<p><code>{_j(r)}</code></p>" for r in e["result"]]
    parts.append("<h2>Cards: the shoe's reads and the camera's, per position</h2>"
                 "<table id='cards'><tr><th>position</th><th>shoe</th><th>camera (last seen)</th>"
                 "<th>agree</th><th>camera readings</th></tr>")
    for pos, c in e["cards"].items():
        agree = {True: "yes", False: "NO", None: "—"}[c["agree"]]
        parts.append(f"<tr><td>{escape(pos)}</td><td>{_j(c['shoe'])}</td><td>{_j(c['camera'])}</td>"
                     f"<td>{agree}</td><td>{len(c['camera_readings'])}</td></tr>")
    parts.append("</table><h2>Bets and postings</h2><table id='bets'><tr><th>key</th><th>kind</th>"
                 "<th>account</th><th>amount</th><th>postings in the ledger</th></tr>")
    for b in e["bets"]:
        m = b["message"]
        refused = b.get("ledger_refused")
        post = ("not checked (no ledger given)" if b["postings"] is None else
                "; ".join(f"{escape(p['account'])} {p['amount']:+d}" for p in b["postings"])
                or (f"<span class='bad'>refused by the ledger: {escape(str(refused['reason']))}"
                    f"</span> ({escape(str(refused['detail']))})" if refused
                    else "none yet (not delivered)" if not b["delivered"] else "none"))
        if b.get("ledger_disagrees"):
            post += f" <span class='bad'>DISAGREES: {escape(str(b['ledger_disagrees']))}</span>"
        parts.append(f"<tr><td><code>{escape(b['key'])}</code></td><td>{escape(b['kind'])}</td>"
                     f"<td>{escape(str(b.get('account', m.get('account', ''))))}</td>"
                     f"<td>{escape(str(b.get('amount', m.get('amount', ''))))}</td><td>{post}</td></tr>")
    parts.append("</table><h2>Payouts: what the records return, and what the ledger credited"
                 "</h2><table id='payouts'><tr><th>account</th><th>the chained records return"
                 "</th><th>the ledger credited</th><th>agree</th></tr>")
    for row in e.get("payouts", []):
        agree = {True: "yes", False: "<span class='bad'>NO</span>", None: "—"}[row["agrees"]]
        booked = "not checked" if row["ledger"] is None else f"{row['ledger']:+d}"
        parts.append(f"<tr data-agrees='{row['agrees']}'><td>{escape(row['account'])}</td>"
                     f"<td>{row['chained']}</td><td>{booked}</td><td>{agree}</td></tr>")
    parts.append("</table><h2>Decisions</h2><table id='decisions'><tr><th>t</th><th>action</th>"
                 "<th>user</th><th>records</th></tr>")
    for d in e["decisions"]:
        parts.append(f"<tr><td>{d['t']:.3f}</td><td>{escape(str(d['action']))}</td>"
                     f"<td>{escape(str(d['user'] or ''))}</td><td>{escape(', '.join(d['records']))}</td></tr>")
    parts.append("</table>")
    if e.get("station_faults"):
        parts.append("<h3>The station's own faults</h3><table id='station-faults'><tr><th>from</th>"
                     "<th>to</th><th>fault</th><th>failed writes</th><th>inputs refused</th>"
                     "<th>error</th></tr>")
        for f in e["station_faults"]:
            parts.append(f"<tr><td>{f['since']:.3f}</td><td>{f['t']:.3f}</td>"
                         f"<td>{escape(str(f['kind']))}: the journal could not be written; the "
                         f"table stood and nothing was acknowledged</td><td>{f['attempts']}</td>"
                         f"<td>{f['refused']}</td><td>{escape(str(f['error']))}"
                         f"{'' if f['last_error'] == f['error'] else ' … ' + escape(str(f['last_error']))}"
                         "</td></tr>")
        parts.append("</table>")
    if e["audit"]:
        parts.append("<h3>The console's audit log</h3><table id='audit'><tr><th>at</th><th>user</th>"
                     "<th>role</th><th>action</th><th>outcome</th><th>reason</th></tr>")
        for a in e["audit"]:
            parts.append(f"<tr><td>{a['at']:.3f}</td><td>{escape(str(a['user']))}</td>"
                         f"<td>{escape(str(a['role']))}</td><td>{escape(str(a['action']))}</td>"
                         f"<td>{escape(str(a['outcome']))}</td><td>{escape(str(a['reason'] or ''))}</td></tr>")
        parts.append("</table>")
    parts.append("<h2>Frames kept at validation</h2>")
    if not frames:
        parts.append("<p>None kept for this round (no camera, or no validation).</p>")
    for p in frames:
        data = base64.b64encode(p.read_bytes()).decode()
        parts.append(f"<figure><img alt='{escape(p.name)}' src='data:image/png;base64,{data}'>"
                     f"<figcaption>frames/{escape(p.name)}</figcaption></figure>")
    parts.append(f"<h2>Timeline</h2><p><label><input type='checkbox' id='only-decisions'> hide "
                 f"shoe and camera lines</label> — <span id='shown'>{len(e['timeline'])}</span> "
                 "lines shown</p><table id='timeline'><tr><th>seq</th><th>t (s)</th><th>input</th>"
                 "<th>records</th></tr>")
    for t in e["timeline"]:
        inp = t["input"]
        parts.append(f"<tr data-kind='{escape(inp['kind'])}' class='kind-{escape(inp['kind'])}'>"
                     f"<td>{t['seq']}</td><td>{t['t']:.3f}</td><td><code>{_j(inp)}</code></td>"
                     f"<td>{escape(', '.join(r['type'] for r in t['records']))}</td></tr>")
    parts.append(f"</table><script>{SCRIPT}</script></body></html>")
    return "".join(parts)
