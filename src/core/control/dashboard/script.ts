/**
 * The dashboard's script: plain browser JavaScript (no framework, no template literals, so that it sits in
 * the page's template as is). Every record and body is put in the page as text, never as markup. It calls
 * only the control plane's documented routes, relative to where the page is, with the token when given.
 */
export const DASHBOARD_SCRIPT = String.raw`
"use strict";
var params = new URLSearchParams(location.search);
var sandbox = params.get("sandbox");
var root = location.pathname.replace(/\/?$/, "/");
var base = sandbox ? "/__sim/sandboxes/" + encodeURIComponent(sandbox) + "/" : root;
var token = sessionStorage.getItem("sim-token:" + base) || "";
var keysById = {};
var handlesById = {};
var lastId = 0;
var journalRows = [];
var $ = function (id) { return document.getElementById(id); };

function el(tag, attrs, children) {
  var e = document.createElement(tag);
  for (var k in attrs || {}) {
    if (k === "text") e.textContent = attrs[k];
    else if (k.slice(0, 2) === "on") e.addEventListener(k.slice(2), attrs[k]);
    else e.setAttribute(k, attrs[k]);
  }
  (children || []).forEach(function (c) { e.append(c); });
  return e;
}

function api(method, path, body, raw) {
  var headers = {};
  if (token) headers["x-sim-control-token"] = token;
  if (body !== undefined) headers["content-type"] = "application/json";
  var init = { method: method, headers: headers };
  if (body !== undefined) init.body = raw ? body : JSON.stringify(body);
  return fetch(base + path, init).then(function (res) {
    return res.text().then(function (text) {
      var json = null;
      try { json = JSON.parse(text); } catch (e) {}
      if (res.status === 401 || (sandbox && res.status === 404 && path === "manifest")) showLogin();
      return { status: res.status, json: json, text: text };
    });
  });
}

function showLogin(message) {
  $("app").hidden = true;
  $("login").hidden = false;
  $("login-error").textContent = message || (token ? "That token does not open this control plane." : "");
}

function start() {
  api("GET", "manifest").then(function (r) {
    if (r.status !== 200) return;
    $("login").hidden = true;
    $("app").hidden = false;
    $("where").textContent = (sandbox ? "sandbox " + sandbox + ": " : "") + "scenario " + r.json.scenario +
      " (seed " + r.json.seed + ")";
    showManifest(r.json);
    loadScenarios();
    loadConfig();
    loadSandboxes();
    refresh();
  });
}

$("login").addEventListener("submit", function (ev) {
  ev.preventDefault();
  token = $("token").value.trim();
  sessionStorage.setItem("sim-token:" + base, token);
  start();
});

// A long value (a path, a key, an ID list) is shortened in its cell, whole on hover and in the copy.
var LONG = 48;
function cell(v) {
  if (v === null || v === undefined) return el("td", { class: "muted", text: "\u2014" });
  var text = String(v);
  // An ID or a path may break anywhere to fit; words keep whole.
  if (text.length <= LONG) return el("td", /\s/.test(text) || text.length < 17 ? { text: text } : { text: text, class: "id" });
  return el("td", { title: text, class: "long" }, [el("span", { text: text.slice(0, LONG - 1) + "\u2026" }),
    copyButton(text)]);
}

function copyButton(text, label) {
  return el("button", { type: "button", text: label || "copy", onclick: function () {
    if (navigator.clipboard) navigator.clipboard.writeText(text).catch(function () {});
  } });
}

function showManifest(m) {
  keysById = {};
  handlesById = {};
  var t = $("users");
  t.replaceChildren(el("tr", {}, ["handle", "plan", "user ID", "API key", ""].map(function (h) { return el("th", { text: h }); })));
  Object.keys(m.users).forEach(function (handle) {
    var u = m.users[handle];
    keysById[u.id] = u.apiKey;
    handlesById[u.id] = handle;
    t.append(el("tr", { "data-handle": handle }, [cell(handle), cell(u.plan), el("td", { class: "mono", text: u.id }),
      el("td", { class: "mono key", text: u.apiKey }), el("td", {}, [copyButton(u.apiKey, "copy key")])]));
  });
}

function curlOf(read) {
  var key = keysById[read.userId] || "<key of " + read.userId + ">";
  return "curl -H 'Authorization: Bearer " + key + "' '" + location.origin + read.path + "'";
}

function showWorld(w) {
  $("now").textContent = w.now;
  $("mode").textContent = "(" + w.clock.mode + " clock)";
  $("jobs-summary").textContent = w.clock.jobs.length ? "queued jobs, next first:" : "no job is queued";
  $("jobs").replaceChildren.apply($("jobs"), w.clock.jobs.map(function (j) { return el("li", { text: j.at + "  " + j.kind }); }));
  var box = $("world");
  box.replaceChildren();
  w.sections.forEach(function (s) {
    if (s.name === "Users") return;
    var cols = s.rows.length ? Object.keys(s.rows[0].cells) : [];
    var t = el("table", { "data-section": s.name }, [el("tr", {}, ["id"].concat(cols, [""]).map(function (h) { return el("th", { text: h }); }))]);
    s.rows.forEach(function (r) {
      t.append(el("tr", { "data-id": r.id }, [el("td", { class: "mono", text: r.id.slice(0, 8) })]
        .concat(cols.map(function (c) { return cell(r.cells[c]); }),
          [el("td", {}, r.read ? [copyButton(curlOf(r.read), "curl")] : [])])));
    });
    box.append(el("h3", { text: s.name + " (" + s.rows.length + ")" }), t);
  });
}

function showFaults(list) {
  var t = $("faults");
  t.replaceChildren(el("tr", {}, ["id", "method", "path", "status", "delay", "times left", ""].map(function (h) { return el("th", { text: h }); })));
  list.forEach(function (f) {
    t.append(el("tr", { "data-fault": String(f.id) }, [cell(f.id), cell(f.method), cell(f.path), cell(f.status), cell(f.delayMs), cell(f.times),
      el("td", {}, [el("button", { type: "button", text: "remove", onclick: function () { api("DELETE", "faults/" + f.id).then(refresh); } })])]));
  });
}

function journalQuery() {
  var q = new URLSearchParams({ limit: "100" });
  [["method", "j-method"], ["path", "j-path"], ["status", "j-status"]].forEach(function (p) {
    var v = $(p[1]).value.trim();
    if (v) q.set(p[0], v);
  });
  return q;
}

function showJournal(entries) {
  var t = $("journal");
  journalRows = entries;
  t.replaceChildren(el("tr", {}, ["#", "at", "method", "path", "status", "ms", "user"].map(function (h) { return el("th", { text: h }); })));
  entries.forEach(function (e, i) {
    t.append(el("tr", { "data-entry": String(e.id), class: e.status >= 400 ? "bad" : "", onclick: function () { showDetail(i); } },
      [cell(e.id), cell(e.at.slice(11, 23)), cell(e.method), cell(e.path + e.query), cell(e.status), cell(e.ms), cell(e.userId ? handlesById[e.userId] || e.userId.slice(0, 8) : null)]));
  });
  if (entries.length) lastId = Math.max(lastId, entries[0].id);
}

function side(title, s) {
  if (!s) return [el("h3", { text: title }), el("p", { class: "muted", text: "not kept (only the newest requests keep headers and bodies)" })];
  var head = Object.keys(s.headers).map(function (k) { return k + ": " + s.headers[k]; }).join("\n");
  var body = s.body === null ? (s.note || "(no body)") : s.body + (s.cut ? "\n\u2026 cut: " + s.size + " in all" : "");
  return [el("h3", { text: title }), el("pre", { text: head }), el("pre", { class: "body", text: body })];
}

function showDetail(i) {
  var e = journalRows[i];
  Array.prototype.forEach.call($("journal").querySelectorAll("tr.sel"), function (r) { r.classList.remove("sel"); });
  var row = $("journal").querySelector('[data-entry="' + e.id + '"]');
  if (row) row.classList.add("sel");
  $("detail").replaceChildren.apply($("detail"), [el("h3", { text: e.method + " " + e.path + e.query + " \u2192 " + e.status })]
    .concat(side("request", e.request), side("response", e.response)));
}

function refresh() {
  return Promise.all([
    api("GET", "world").then(function (r) { if (r.status === 200) showWorld(r.json); }),
    api("GET", "faults").then(function (r) { if (r.status === 200) showFaults(r.json); }),
    api("GET", "requests?" + journalQuery()).then(function (r) { if (r.status === 200) showJournal(r.json); }),
  ]);
}

function loadScenarios() {
  api("GET", "scenarios").then(function (r) {
    if (r.status !== 200) return;
    $("scenario").replaceChildren.apply($("scenario"), r.json.map(function (s) { return el("option", { value: s.name, text: s.name, title: s.description || "" }); }));
  });
}

function loadConfig() {
  api("GET", "config").then(function (r) {
    if (r.status !== 200) return;
    $("rate").value = r.json.rateLimitPerMinute;
    $("latency").value = Array.isArray(r.json.latencyMs) ? r.json.latencyMs[0] : r.json.latencyMs;
  });
}

function loadSandboxes() {
  if (sandbox) return;
  api("GET", "sandboxes").then(function (r) {
    if (r.status !== 200 || !Array.isArray(r.json)) return;
    $("sandboxes-panel").hidden = false;
    var t = $("sandboxes");
    t.replaceChildren(el("tr", {}, ["id", "scenario", "created", "idle s", ""].map(function (h) { return el("th", { text: h }); })));
    r.json.forEach(function (s) {
      t.append(el("tr", {}, [el("td", {}, [el("a", { href: root + "?sandbox=" + encodeURIComponent(s.id), text: s.id })]), cell(s.scenario), cell(s.createdAt), cell(s.idleSeconds),
        el("td", {}, [el("button", { type: "button", text: "delete", onclick: function () { api("DELETE", "sandboxes/" + s.id).then(loadSandboxes); } })])]));
    });
  });
}

function worldChanged(r, what) {
  $("problems").replaceChildren();
  if (r.status === 200) {
    $("world-message").textContent = what;
    $("world-message").className = "ok";
    showManifest(r.json && r.json.users ? r.json : { users: {} });
    return refresh();
  }
  $("world-message").className = "bad";
  $("world-message").textContent = (r.json && r.json.statusMessage) || ("answered " + r.status);
  var problems = (r.json && r.json.data && r.json.data.problems) || [];
  problems.forEach(function (p) {
    $("problems").append(el("li", {}, [el("code", { text: p.pointer !== undefined ? (p.pointer || "/") : (p.path || "") }), " " + (p.message || JSON.stringify(p))]));
  });
}

function readFile(input) {
  var f = $(input).files[0];
  return f ? f.text() : Promise.reject(new Error("choose a file first"));
}

document.addEventListener("click", function (ev) {
  var ms = ev.target.getAttribute && ev.target.getAttribute("data-advance");
  if (ms) api("POST", "clock/advance", { ms: Number(ms) }).then(refresh);
});
$("advance").addEventListener("click", function () { api("POST", "clock/advance", { ms: Number($("advance-ms").value) }).then(refresh); });
$("next-job").addEventListener("click", function () { api("POST", "clock/advance", { toNextJob: true }).then(refresh); });
$("fault-form").addEventListener("submit", function (ev) {
  ev.preventDefault();
  var rule = {};
  if ($("fault-method").value) rule.method = $("fault-method").value;
  if ($("fault-path").value.trim()) rule.path = $("fault-path").value.trim();
  [["status", "fault-status"], ["delayMs", "fault-delay"], ["times", "fault-times"]].forEach(function (p) {
    if ($(p[1]).value !== "") rule[p[0]] = Number($(p[1]).value);
  });
  api("POST", "faults", rule).then(function (r) {
    $("fault-error").textContent = r.status === 201 ? "" : (r.json && r.json.statusMessage) || ("answered " + r.status);
    refresh();
  });
});
$("faults-clear").addEventListener("click", function () { api("DELETE", "faults").then(refresh); });
$("config-form").addEventListener("submit", function (ev) {
  ev.preventDefault();
  api("PATCH", "config", { rateLimitPerMinute: Number($("rate").value), latencyMs: Number($("latency").value) }).then(loadConfig);
});
$("reset").addEventListener("click", function () {
  api("POST", "reset", { scenario: $("scenario").value, seed: Number($("seed").value) }).then(function (r) { worldChanged(r, "reset to " + $("scenario").value); });
});
$("upload").addEventListener("click", function () {
  readFile("document").then(function (text) {
    var doc;
    try { doc = JSON.parse(text); } catch (e) { return worldChanged({ status: 400, json: { statusMessage: "The file is not JSON: " + e.message } }); }
    return api("POST", "reset", { scenario: doc }).then(function (r) { worldChanged(r, "loaded the document"); });
  }).catch(function (e) { worldChanged({ status: 400, json: { statusMessage: e.message } }); });
});
$("download").addEventListener("click", function () {
  api("GET", "snapshot").then(function (r) {
    var a = el("a", { href: URL.createObjectURL(new Blob([r.text], { type: "application/json" })), download: "snapshot.json" });
    document.body.append(a);
    a.click();
    a.remove();
  });
});
$("load-snapshot").addEventListener("click", function () {
  readFile("snapshot-file").then(function (text) {
    return api("PUT", "snapshot", text, true).then(function (r) { worldChanged(r, "loaded the snapshot"); });
  }).catch(function (e) { worldChanged({ status: 400, json: { statusMessage: e.message } }); });
});
$("sandbox-new").addEventListener("click", function () {
  api("POST", "sandboxes", {}).then(function (r) {
    $("sandbox-made").textContent = r.status === 201 ? JSON.stringify(r.json, null, 2) : r.text;
    loadSandboxes();
  });
});
$("j-clear").addEventListener("click", function () { api("DELETE", "requests").then(refresh); });
["j-method", "j-path", "j-status"].forEach(function (id) { $(id).addEventListener("change", refresh); });
setInterval(function () { if (!$("app").hidden) refresh(); }, 1000);
start();
`;
