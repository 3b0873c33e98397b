/**
 * The dashboard (`GET /__sim/`): one self-contained page (no build step, no CDN) that shows and drives a
 * world through the control plane's documented routes only, so that whatever a person clicks a script can
 * do. The page itself holds no data: with a control token set it asks for the token first and shows
 * nothing until a request made with it succeeds. `?sandbox=ID` drives that sandbox's control plane.
 */
import { DASHBOARD_SCRIPT } from "./script.gen.ts";
import { DASHBOARD_STYLE } from "./style.ts";

export const DASHBOARD_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Simulator dashboard</title><link rel="icon" href="data:,"><style>${DASHBOARD_STYLE}</style></head>
<body>
<header><h1>Audience Research Service simulator</h1><span id="where"></span>
<span class="clock">now <b id="now">…</b> <span id="mode"></span></span></header>
<form id="login" hidden><p>This simulator's control plane needs its token.</p>
<input id="token" type="password" autocomplete="off" placeholder="control token" aria-label="control token">
<button>Open</button><span id="login-error" class="bad"></span></form>
<main id="app" hidden>
<section id="clock-panel"><h2>Clock</h2>
<div class="row"><button data-advance="60000">+1 min</button><button data-advance="600000">+10 min</button>
<button data-advance="3600000">+1 h</button><button data-advance="86400000">+1 day</button>
<button id="next-job">to the next job</button>
<label>ms <input id="advance-ms" type="number" min="0" step="1000" value="120000"></label><button id="advance">advance</button></div>
<p class="muted" id="jobs-summary"></p><ol id="jobs"></ol></section>
<section><h2>Journal</h2>
<div class="row"><input id="j-method" placeholder="method" aria-label="journal method">
<input id="j-path" placeholder="path glob" aria-label="journal path">
<input id="j-status" placeholder="status or 4xx" aria-label="journal status">
<button id="j-clear" type="button">empty it</button></div>
<table id="journal"></table><div id="detail"></div></section>
<section><h2>Faults</h2>
<form id="fault-form" class="row"><select id="fault-method" aria-label="method"><option value="">any method</option>
<option>GET</option><option>POST</option><option>PUT</option><option>DELETE</option></select>
<input id="fault-path" placeholder="/api/v1/audiences/**" aria-label="path glob">
<input id="fault-status" type="number" min="100" max="599" placeholder="status" aria-label="status">
<input id="fault-delay" type="number" min="0" max="60000" placeholder="delay ms" aria-label="delay ms">
<input id="fault-times" type="number" min="1" placeholder="times" aria-label="times">
<button>arm</button><button type="button" id="faults-clear">clear all</button></form>
<p class="bad" id="fault-error"></p><table id="faults"></table>
<h3>Config</h3><form id="config-form" class="row">
<label>rate limit / min <input id="rate" type="number" min="1"></label>
<label>latency ms <input id="latency" type="number" min="0"></label><button>save</button></form></section>
<section><h2>Users and keys</h2><table id="users"></table></section>
<section class="wide"><h2>World</h2><div id="world"></div></section>

<section><h2>Scenarios and snapshots</h2>
<div class="row"><select id="scenario" aria-label="scenario"></select>
<label>seed <input id="seed" type="number" min="0" value="1"></label><button id="reset">reset to it</button></div>
<div class="row"><label>scenario document <input id="document" type="file" accept=".json,application/json"></label>
<button id="upload">load the document</button></div>
<div class="row"><button id="download">download the snapshot</button>
<label>snapshot <input id="snapshot-file" type="file" accept=".json,application/json"></label>
<button id="load-snapshot">load it</button></div>
<p id="world-message"></p><ul id="problems" class="bad"></ul></section>
<section id="sandboxes-panel" hidden><h2>Sandboxes (operator)</h2>
<div class="row"><button id="sandbox-new">new sandbox</button></div><pre id="sandbox-made"></pre>
<table id="sandboxes"></table></section>

</main>
<script>${DASHBOARD_SCRIPT}</script>
</body></html>
`;
