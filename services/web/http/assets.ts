/**
 * The dashboard's static assets: its one stylesheet (the CSP allows no other styles) and its icon
 * (linked from every page, so browsers do not ask for a /favicon.ico nobody serves).
 */

/** Path the pages link to. */
export const STYLESHEET_PATH = '/assets/app.css'
/** Path of the icon. */
export const ICON_PATH = '/assets/icon.svg'

/** The icon: a bracket around a dot, in the accent colour. */
export const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#2450d8"/><path d="M12 8H8v16h4M20 8h4v16h-4" fill="none" stroke="#fff" stroke-width="3"/><circle cx="16" cy="16" r="3" fill="#f5a524"/></svg>`

/**
 * The stylesheet's text. Table cells break recorded text anywhere (it can be one long token), but
 * headers and the known problems list's short cells break only a word too long for the line
 * (break-word): with anywhere, a column's narrowest width is one letter, and the table's layout
 * squeezed "Users" and "Recordings" to a letter or two a line at 1280 px.
 */
export const STYLESHEET = `
:root { --fg: #1c2430; --muted: #5b6675; --line: #d8dde4; --bg: #f6f7f9; --panel: #fff; --accent: #2450d8; --accent-fg: #fff; --danger: #b42318; --ok: #1a7f37; --focus: #f5a524; }
* { box-sizing: border-box; }
html { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
body { margin: 0; }
a { color: var(--accent); }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9em; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.skip { position: absolute; left: -999px; top: 0; background: var(--panel); padding: .5rem 1rem; }
.skip:focus { left: .5rem; }
.top { display: flex; align-items: center; gap: 1.5rem; padding: .75rem 1.5rem; background: var(--panel); border-bottom: 1px solid var(--line); }
.brand { font-weight: 700; font-size: 1.15rem; text-decoration: none; color: var(--fg); }
.top nav { flex: 1; display: flex; gap: 1rem; }
.top nav a { text-decoration: none; }
.account { display: flex; align-items: center; gap: .75rem; }
.who { color: var(--muted); }
main { max-width: 64rem; margin: 2rem auto; padding: 0 1.5rem; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; overflow-wrap: anywhere; }
h2 { font-size: 1.15rem; margin: 2rem 0 .75rem; }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 1.5rem 2rem; }
.narrow { max-width: 30rem; margin: 0 auto; }
.stack { display: flex; flex-direction: column; gap: .4rem; }
label { font-weight: 600; margin-top: .6rem; }
input[type=email], input[type=password], input[type=text] { font: inherit; padding: .55rem .7rem; border: 1px solid #9aa4b2; border-radius: 6px; }
fieldset { border: 1px solid var(--line); border-radius: 6px; padding: .75rem 1rem; margin: 0; }
legend { font-weight: 600; padding: 0 .25rem; }
.choice { display: flex; align-items: baseline; gap: .5rem; padding: .25rem 0; }
.choice label { font-weight: 400; margin: 0; overflow-wrap: anywhere; }
button, .button { font: inherit; display: inline-block; padding: .55rem 1.1rem; border-radius: 6px; border: 1px solid transparent; cursor: pointer; text-decoration: none; }
.primary { background: var(--accent); color: var(--accent-fg); }
.secondary { background: var(--panel); color: var(--accent); border-color: var(--accent); }
.danger { background: var(--panel); color: var(--danger); border-color: var(--danger); }
button.link { background: none; border: 0; padding: 0; color: var(--accent); text-decoration: underline; }
form.inline { display: inline; margin: 0; }
.stack button { margin-top: 1rem; align-self: flex-start; }
.actions { display: flex; flex-wrap: wrap; gap: .75rem; margin-top: 1.25rem; }
.alt { margin-top: 1.25rem; }
.error { color: var(--danger); background: #fef3f2; border: 1px solid #fecdca; border-radius: 6px; padding: .6rem .8rem; }
.notice { background: #eff4ff; border: 1px solid #c7d7fe; border-radius: 6px; padding: .6rem .8rem; }
.message { font-size: 1.05rem; }
.hint, .muted { color: var(--muted); }
.small { font-size: .85rem; }
.ok { color: var(--ok); font-weight: 600; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: .35rem 1.25rem; margin: 1rem 0; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; overflow-wrap: anywhere; }
table { width: 100%; border-collapse: collapse; background: var(--panel); border: 1px solid var(--line); }
th, td { text-align: left; padding: .5rem .75rem; border-bottom: 1px solid var(--line); vertical-align: top; overflow-wrap: anywhere; }
th { font-size: .85rem; color: var(--muted); font-weight: 600; overflow-wrap: break-word; }
.num { text-align: right; }
.status { font-size: .8rem; padding: .1rem .45rem; border-radius: 999px; background: #eef0f3; }
.cards { list-style: none; padding: 0; display: grid; gap: .75rem; }
.cards li { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 1rem 1.25rem; display: flex; flex-direction: column; }
.crumbs { color: var(--muted); margin: 0 0 .5rem; }
.tabs { display: flex; gap: 1.25rem; border-bottom: 1px solid var(--line); margin-bottom: 1.5rem; }
.tabs a { padding: .5rem 0; text-decoration: none; color: var(--muted); border-bottom: 2px solid transparent; }
.tabs a[aria-current=page] { color: var(--fg); border-bottom-color: var(--accent); }
pre.stack { background: #0f1720; color: #e6edf3; padding: 1rem; border-radius: 6px; overflow: auto; white-space: pre; }
.empty { color: var(--muted); }
.sr-only { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
.nowrap { white-space: nowrap; }
code.wrap { white-space: pre-wrap; overflow-wrap: anywhere; }
h3 { font-size: 1rem; margin: 1.5rem 0 .5rem; }
.badge { font-size: .75rem; padding: .05rem .45rem; border-radius: 999px; font-weight: 600; white-space: nowrap; vertical-align: middle; }
.badge.noise { background: #fff4e5; color: #8a4b00; border: 1px solid #f5c37a; }
.noise-toggle { margin: 0 0 1rem; }
.culprit { margin: -.5rem 0 1rem; color: var(--muted); overflow-wrap: anywhere; }
.noise-note, .stack-note { margin: 1rem 0; }
pre.message { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 12rem; overflow: auto; }
ol.frames { list-style: none; padding: 0; margin: 0; display: flex; flex-direction: column; gap: .5rem; }
.frame { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: .5rem .75rem; overflow-wrap: anywhere; }
.frame.app { border-left: 4px solid var(--accent); }
.frame.app .fn { font-weight: 700; }
.frame.lib { color: var(--muted); background: var(--bg); }
.frame-run details { border: 1px dashed var(--line); border-radius: 6px; padding: .35rem .75rem; }
.frame-run summary { cursor: pointer; color: var(--muted); }
.frame-run ol.frames { margin-top: .5rem; }
.tag { font-size: .75rem; padding: 0 .4rem; border-radius: 999px; background: #eef0f3; color: var(--muted); }
.unresolved { margin: .35rem 0 0; color: #8a4b00; }
.async-boundary { display: flex; align-items: center; gap: .5rem; color: var(--muted); font-size: .85rem; }
.async-boundary::before, .async-boundary::after { content: ""; flex: 1; border-top: 1px dashed var(--muted); }
.source { overflow-x: auto; margin-top: .5rem; border-radius: 6px; background: #0f1720; }
.source table { width: auto; min-width: 100%; border: 0; background: none; }
.source td { border: 0; padding: 0 .75rem; color: #e6edf3; overflow-wrap: normal; }
.source td.code code { white-space: pre; }
.source td.ln { text-align: right; color: #8b949e; user-select: none; width: 1%; }
.source tr.hit td { background: #5a1e1e; color: #fff; }
.raw-stack { margin-top: 1rem; }
.raw-stack summary, .frame-source summary { cursor: pointer; color: var(--muted); }
.frame-source summary { font-size: .85rem; }
.crumb-data { display: grid; grid-template-columns: max-content 1fr; gap: 0 .5rem; margin: 0; font-size: .85rem; }
.crumb-data dt { color: var(--muted); }
.crumb-data dd { margin: 0; overflow-wrap: anywhere; }
.chart { margin: 0; }
.chart svg { display: block; width: 100%; height: auto; max-height: 12rem; background: var(--panel); border: 1px solid var(--line); border-radius: 6px; }
.chart .bar { fill: var(--accent); }
.chart .bar-empty { fill: var(--line); }
.chart .axis { stroke: var(--line); }
.chart text { font-size: 9px; fill: var(--muted); }
.facets { display: grid; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); gap: 1rem; }
.facet caption { text-align: left; font-weight: 600; padding: .4rem .75rem; }
.facet meter { display: block; width: 100%; height: .5rem; }
.investigation .prose, .fix .prose { white-space: pre-wrap; overflow-wrap: anywhere; }
.investigation .stop, .fix .stop { background: #fef3f2; border: 1px solid #fecdca; border-radius: 6px; padding: .6rem .8rem; }
.investigation .stop p, .fix .stop p { margin: .35rem 0; }
ol.chain li { margin: .2rem 0; overflow-wrap: anywhere; }
ul.citations { list-style: none; padding: 0; margin: 0; }
ul.citations li { margin: 0 0 .75rem; overflow-wrap: anywhere; }
pre.quote { background: #0f1720; color: #e6edf3; padding: .5rem .75rem; border-radius: 6px; overflow: auto; white-space: pre; margin: .35rem 0 0; }
form.investigate, form.fix-this { margin-top: 1rem; }
.bad, .ci-failure, .verdict-vetoed { color: var(--danger); font-weight: 600; }
.ci-success, .verdict-approved { color: var(--ok); font-weight: 600; }
.badge.draft { background: #eef0f3; color: var(--fg); border: 1px solid var(--line); }
.badge.ready { background: #e7f5ec; color: var(--ok); border: 1px solid #a6dbb7; }
.badge.unverified { background: #fff4e5; color: #8a4b00; border: 1px solid #f5c37a; }
details.excerpt summary { cursor: pointer; color: var(--muted); font-size: .85rem; }
.filters { display: flex; flex-wrap: wrap; align-items: flex-end; gap: .5rem 1.25rem; margin: 0 0 1.25rem; }
.filters .stack label { margin-top: 0; }
.filters .choice { padding-bottom: .6rem; }
.pager { align-items: center; }
.badge.gap { background: #fef3f2; color: var(--danger); border: 1px solid #fecdca; }
ol.pages { margin: 0; padding-left: 1.25rem; }
ol.timeline { list-style: none; padding: 0; margin: 0; display: flex; flex-direction: column; gap: .35rem; }
ol.timeline .step { display: flex; align-items: baseline; gap: .6rem; overflow-wrap: anywhere; }
ol.timeline .at { font-variant-numeric: tabular-nums; min-width: 3.5rem; }
ol.timeline .error { background: #fef3f2; border-radius: 6px; padding: .2rem .4rem; }
.status.bad { background: #fef3f2; }
.replay { min-height: 4rem; margin: 0 0 .5rem; display: flow-root; }
.replay .rr-player { box-shadow: none; border: 1px solid var(--line); }
table.known-problems td { overflow-wrap: break-word; }
.badge.triage.open { background: #eef0f3; color: var(--fg); border: 1px solid var(--line); }
.badge.triage.resolved { background: #e7f5ec; color: var(--ok); border: 1px solid #a6dbb7; }
.badge.triage.ignored { background: #f4f4f5; color: var(--muted); border: 1px solid var(--line); }
.badge.regressed { background: #fef3f2; color: var(--danger); border: 1px solid #fecdca; }
p.filters { display: flex; flex-wrap: wrap; gap: .5rem .9rem; align-items: flex-end; margin: .35rem 0; }
label.filter { display: inline-flex; flex-direction: column; gap: .15rem; font-size: .85rem; }
label.filter:has(input[type=checkbox]) { flex-direction: row; align-items: center; }
.bulk-bar, .triage-form, .merge-form { display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; margin: .35rem 0; }
pre.excerpt { background: #0f1720; color: #e6edf3; padding: .5rem .75rem; border-radius: 6px; overflow: auto; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 20rem; margin: .35rem 0 0; }
`
