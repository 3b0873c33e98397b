/** The dashboard's CSS: system fonts, no assets, readable in light and dark schemes. */
export const DASHBOARD_STYLE = `
:root{color-scheme:light dark;--line:#8884;--muted:#888;--bad:#c0392b;--ok:#1e8449}
body{font:14px/1.4 system-ui,sans-serif;margin:0}
[hidden]{display:none!important}
header{display:flex;gap:1.5em;align-items:baseline;padding:.6em 1em;border-bottom:1px solid var(--line);position:sticky;top:0;background:Canvas;z-index:1}
h1{font-size:1.1em;margin:0}h2{font-size:1em;margin:.2em 0 .5em}h3{font-size:.95em}
main{display:grid;grid-template-columns:repeat(auto-fit,minmax(34em,1fr));gap:1em;padding:1em;align-items:start}
section{border:1px solid var(--line);border-radius:6px;padding:.6em .8em;min-width:0;overflow-x:auto}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid var(--line);padding:.2em .4em;text-align:left;vertical-align:top}
td.mono,td.key,td.id,td.long{overflow-wrap:anywhere}td.long button{margin-left:.3em;font-size:11px}
section.wide{grid-column:1/-1}
th{font-weight:600}.row{display:flex;flex-wrap:wrap;gap:.4em;align-items:center;margin:.3em 0}
input{max-width:14em}button{cursor:pointer}.muted{color:var(--muted)}.bad{color:var(--bad)}.ok{color:var(--ok)}
code,pre,.mono{font:12px ui-monospace,monospace}pre{white-space:pre-wrap;word-break:break-all;margin:.3em 0}
#journal tr{cursor:pointer}#journal tr.sel{background:#8882}
form#login{padding:2em;max-width:30em}
`;
