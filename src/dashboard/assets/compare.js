// Comparing runs (#/compare?jobs=PROJECT/NAME,PROJECT/NAME,...): the curves of two or more jobs'
// metrics.jsonl on one chart per metric, x aligned by step, epoch or wall time, smoothed as
// TensorBoard smooths (smoothing.js; the raw curve faint behind), a log scale; the final metrics
// side by side and the differences of the specs (secret values arrive masked from the server).
// The Jobs page selects jobs with selectBox / compareBar (kept in sessionStorage).
import { NOT_CURVES, drawAtWidth, fmtNum, niceTicks, xTickCount } from "./chart.js";
import { lastValue, smooth, specDiff, stepsPerEpoch, xValues } from "./smoothing.js";
import { pages, ui } from "./ui.js";

const RUNS = 8;  // colours --run-0 .. --run-7 (compare.css)
const POLL_MS = 5000;
const ORDER = ["train.loss", "train.seg_loss", "train.exist_loss", "train.lr", "train.images_per_s",
  "val.accuracy", "val.fp", "val.fn"];
const AXES = { step: "step", epoch: "epoch", wall: "wall time (s since the run's first record)" };
// The SVG is as wide as its box (drawAtWidth), H high, with these margins around the plot.
const H = 240, L = 58, R = 14, T = 12, B = 30;

// ---- selection on the Jobs page ----

const STORE = "lanectl.compare";

function selected() {
  try { return JSON.parse(sessionStorage.getItem(STORE) || "[]"); } catch (e) { return []; }
}

function setSelected(keys) {
  sessionStorage.setItem(STORE, JSON.stringify(keys));
  for (const bar of document.querySelectorAll(".compare-bar")) showBar(bar, keys);
}

function showBar(bar, keys) {
  const [link, clear] = bar.children;
  link.textContent = keys.length < 2 ? "Tick two or more jobs to compare" : "Compare " + keys.length + " runs";
  link.classList.toggle("ready", keys.length >= 2);
  if (keys.length >= 2) link.href = compareHref(keys); else link.removeAttribute("href");
  clear.hidden = keys.length === 0;
}

export const compareHref = (keys) => "#/compare?jobs=" + keys.map(encodeURIComponent).join(",");

// The checkbox in a job's row: adds the job to, or removes it from, the comparison.
export function selectBox(job) {
  const key = job.project + "/" + job.name;
  return ui.el("input", {
    type: "checkbox", class: "compare-select", "aria-label": "Compare " + key, title: "Select to compare",
    checked: selected().includes(key), dataset: { job: key },
    onchange: (e) => setSelected(e.target.checked ? [...new Set([...selected(), key])] : selected().filter((k) => k !== key)),
  });
}

// "Compare N runs" (a link once two are selected) and "clear", kept up to date by setSelected.
export function compareBar() {
  const clear = ui.el("button", { type: "button", class: "compare-clear", text: "clear", onclick: () => {
    setSelected([]);
    for (const box of document.querySelectorAll(".compare-select")) box.checked = false;
  } });
  const bar = ui.el("span", { class: "compare-bar" }, ui.el("a", { id: "compare-link", class: "compare-link" }), clear);
  showBar(bar, selected());
  return bar;
}

// ---- the chart ----

// Maps for one axis: values through `f` (log10 or identity), ticks labelled in the original unit.
function axis(values, log, n) {
  const f = log ? (v) => (v > 0 ? Math.log10(v) : null) : (v) => v;
  let lo = Infinity, hi = -Infinity;
  for (const v of values) { const t = v === null ? null : f(v); if (t !== null && Number.isFinite(t)) { lo = Math.min(lo, t); hi = Math.max(hi, t); } }
  if (!Number.isFinite(lo)) return null;
  const ticks = niceTicks(lo, hi, n);
  if (log && ticks.hi - ticks.lo >= 2) ticks.ticks = ticks.ticks.filter((t) => Number.isInteger(t));  // decades
  return { ...ticks, f, label: (t) => fmtNum(log ? Math.pow(10, t) : t) };
}

function pathOf(xs, ys, px, py, f) {
  let d = "", pen = "M";
  ys.forEach((y, i) => {
    const t = y === null ? null : f(y);
    if (t === null || !Number.isFinite(t) || xs[i] === null) { pen = "M"; return; }
    d += `${pen}${px(xs[i]).toFixed(1)},${py(t).toFixed(1)}`;
    pen = "L";
  });
  return d;
}

// One metric of every run: [{run, xs, raw, smoothed}] on shared axes, in an SVG `W` wide.
function plotSvg(title, series, opts, W) {
  const X = axis(series.flatMap((s) => s.xs), false, xTickCount(W));
  const Y = axis(series.flatMap((s) => [...s.raw, ...s.smoothed]), opts.log, 5);
  const svg = ui.svg("svg", { viewBox: `0 0 ${W} ${H}`, height: H, class: "chart-svg compare-svg", role: "img", "aria-label": title });
  if (!X || !Y) {
    svg.append(ui.svg("text", { x: W / 2, y: H / 2, "text-anchor": "middle", class: "nodata" },
      document.createTextNode(opts.log ? "no positive values for a log scale" : "no values on this axis")));
  } else {
    const span = (a) => (a.hi - a.lo) || 1;
    const px = (x) => L + (x - X.lo) / span(X) * (W - L - R), py = (y) => H - B - (y - Y.lo) / span(Y) * (H - T - B);
    const axes = ui.svg("g", { class: "axes" });
    for (const t of Y.ticks) axes.append(ui.svg("line", { x1: L, x2: W - R, y1: py(t), y2: py(t), class: "grid" }),
      ui.svg("text", { x: L - 6, y: py(t) + 4, "text-anchor": "end" }, document.createTextNode(Y.label(t))));
    for (const t of X.ticks) axes.append(ui.svg("line", { x1: px(t), x2: px(t), y1: H - B, y2: H - B + 4, class: "tick" }),
      ui.svg("text", { x: px(t), y: H - B + 16, "text-anchor": "middle" }, document.createTextNode(X.label(t))));
    axes.append(ui.svg("line", { x1: L, x2: W - R, y1: H - B, y2: H - B, class: "axis" }),
      ui.svg("text", { x: W - R, y: H - 2, "text-anchor": "end", class: "xlabel" }, document.createTextNode(AXES[opts.x])));
    svg.append(axes);
    for (const s of series) {
      const color = `var(--run-${s.run % RUNS})`;
      const raw = ui.svg("path", { d: pathOf(s.xs, s.raw, px, py, Y.f), class: "series raw", "data-run": s.run });
      const sm = ui.svg("path", { d: pathOf(s.xs, s.smoothed, px, py, Y.f), class: "series smoothed", "data-run": s.run });
      raw.style.stroke = color;
      sm.style.stroke = color;
      svg.append(raw, sm);
      // Dots where a run has few points: a run with one validation record has no line to draw.
      const points = s.xs.map((x, i) => [x, s.smoothed[i] === null ? null : Y.f(s.smoothed[i])])
        .filter(([x, t]) => x !== null && t !== null && Number.isFinite(t));
      if (points.length <= 40)
        for (const [x, t] of points) {
          const dot = ui.svg("circle", { cx: px(x).toFixed(1), cy: py(t).toFixed(1), r: 2.5, class: "dot", "data-run": s.run });
          dot.style.fill = color;
          svg.append(dot);
        }
    }
  }
  return svg;
}

function chart(title, series, opts) {
  const plot = ui.el("div", { class: "plot" });
  drawAtWidth(plot, (W) => plot.replaceChildren(plotSvg(title, series, opts, W)));
  return ui.el("figure", { class: "chart compare-chart", dataset: { metric: title } },
    ui.el("figcaption", {}, ui.el("span", { class: "chart-title", text: title })), plot);
}

// ---- the page ----

// "P/N" keys from ?jobs=; a bare NAME is the first job of that name the list knows, else
// "default/NAME". The list is the jobs stream's, or /api/jobs when the stream has sent none yet
// (a link opened in a new tab).
async function parseKeys(query) {
  const words = (query.get("jobs") || "").split(",").map((w) => w.trim()).filter(Boolean);
  let jobs = ui.jobsFeed.jobs;
  if (!jobs && words.some((w) => !w.includes("/"))) jobs = await ui.fetchJSON("/api/jobs").catch(() => []);
  return [...new Set(words.map((w) => {
    if (w.includes("/")) return w;
    const j = (jobs || []).find((x) => x.name === w);
    return (j ? j.project : "default") + "/" + w;
  }))];
}

// The metrics of every run, in ORDER first: [[kind, key], ...].
function metricKeys(runs) {
  const all = new Set();
  for (const r of runs)
    for (const [kind, cols] of Object.entries((r.metrics && r.metrics.kinds) || {}))
      for (const key of Object.keys(cols)) if (!NOT_CURVES.has(key)) all.add(kind + "." + key);
  const known = ORDER.filter((k) => all.has(k));
  return [...known, ...[...all].filter((k) => !known.includes(k)).sort()].map((k) => k.split("."));
}

function charts(runs, opts) {
  return metricKeys(runs).map(([kind, key]) => {
    const series = [];
    runs.forEach((r, run) => {
      const cols = r.metrics && r.metrics.kinds && r.metrics.kinds[kind];
      if (!cols || !cols[key]) return;
      const train = r.metrics.kinds.train || cols;
      const xs = xValues(cols, opts.x, stepsPerEpoch(train.step || [], train.epoch || []));
      series.push({ run, xs, raw: cols[key], smoothed: smooth(cols[key], opts.smoothing) });
    });
    return chart(kind + " · " + key, series, opts);
  });
}

function legend(runs) {
  return ui.el("div", { class: "compare-legend" }, runs.map((r, i) => {
    const sw = ui.el("span", { class: "swatch" });
    sw.style.background = `var(--run-${i % RUNS})`;
    return ui.el("a", { class: "legend-item", href: ui.jobHref(r.project, r.name), dataset: { run: i } }, sw, r.key);
  }));
}

function cellRow(label, values, cls) {
  return ui.el("tr", { class: cls }, ui.el("th", { scope: "row", text: label }), values.map((v) => ui.el("td", { text: v })));
}

function finalTable(runs) {
  const rows = metricKeys(runs).map(([kind, key]) => cellRow(kind + " · " + key, runs.map((r) => {
    const col = r.metrics && r.metrics.kinds && r.metrics.kinds[kind] && r.metrics.kinds[kind][key];
    return fmtNum(lastValue(col));
  })));
  const head = ui.el("tr", {}, ui.el("th", { text: "final value" }), runs.map((r) => ui.el("th", { text: r.key })));
  return ui.el("table", { class: "grid-table compare-table", id: "compare-final" }, ui.el("thead", {}, head), ui.el("tbody", {}, rows));
}

function diffTable(runs) {
  const rows = specDiff(runs.map((r) => r.job ? { type: r.job.type, processes: r.job.processes, ...r.job.spec } : {}));
  const differing = rows.filter((r) => r.differs);
  const head = () => ui.el("thead", {}, ui.el("tr", {}, ui.el("th", { text: "spec" }), runs.map((r) => ui.el("th", { text: r.key }))));
  const body = (list) => ui.el("tbody", {}, list.map((r) => cellRow(r.key, r.values, r.differs ? "differs" : "")));
  return ui.el("div", {},
    ui.el("p", { class: "muted small", text: differing.length + " of " + rows.length + " spec fields differ (highlighted)" }),
    ui.el("table", { class: "grid-table compare-table", id: "compare-diff" }, head(), body(differing)),
    ui.el("details", { class: "raw" }, ui.el("summary", { text: (rows.length - differing.length) + " equal fields" }),
      ui.el("table", { class: "grid-table compare-table" }, head(), body(rows.filter((r) => !r.differs)))));
}

function controls(opts, redraw) {
  const x = ui.el("select", { id: "compare-x", "aria-label": "x axis" }, Object.entries({ step: "step", epoch: "epoch", wall: "wall time" })
    .map(([v, t]) => new Option(t, v, false, v === opts.x)));
  const s = ui.el("input", { id: "compare-smoothing", type: "range", min: "0", max: "0.99", step: "0.01", value: String(opts.smoothing), "aria-label": "Smoothing" });
  const sv = ui.el("output", { id: "compare-smoothing-value", text: opts.smoothing.toFixed(2) });
  const log = ui.el("input", { id: "compare-log", type: "checkbox", checked: opts.log });
  x.addEventListener("change", () => { opts.x = x.value; redraw(); });
  s.addEventListener("input", () => { opts.smoothing = Number(s.value); sv.textContent = opts.smoothing.toFixed(2); redraw(); });
  log.addEventListener("change", () => { opts.log = log.checked; redraw(); });
  return ui.el("section", { class: "toolbar compare-controls" },
    ui.el("label", {}, "X axis ", x), ui.el("label", {}, "Smoothing ", s, sv), ui.el("label", {}, log, " log scale"));
}

function mount(root, params) {
  let alive = true, timer = null;
  parseKeys(params.query || new URLSearchParams()).then((keys) => {
    if (alive) timer = show(root, keys, () => alive);
  });
  return () => { alive = false; clearTimeout(timer && timer.id); };
}

// The page for `keys`; returns {id} holding its poll timer (null for none).
function show(root, keys, alive) {
  const timer = { id: null };
  root.append(ui.el("div", { class: "job-head" }, ui.el("a", { href: "#/jobs", class: "back", text: "← Jobs" }),
    ui.el("h2", { text: "Compare runs" })));
  if (keys.length < 2) {
    root.append(ui.errorBox("Pick two or more jobs: tick them on the Jobs page, or open #/compare?jobs=PROJECT/NAME,PROJECT/NAME."));
    return timer;
  }
  const runs = keys.map((key) => { const [project, name] = key.split("/"); return { key, project, name, job: null, metrics: null }; });
  const opts = { x: "step", smoothing: 0.6, log: false };
  const body = { charts: ui.el("div", { class: "charts", id: "compare-charts" }), final: ui.el("div", {}), diff: ui.el("div", {}), notes: ui.el("ul", { class: "plain muted small", id: "compare-notes" }) };
  const redraw = () => {
    body.charts.replaceChildren(...charts(runs, opts));
    body.final.replaceChildren(finalTable(runs));
    body.diff.replaceChildren(diffTable(runs));
    body.notes.replaceChildren(...runs.filter((r) => r.error || (r.metrics && !r.metrics.available))
      .map((r) => ui.el("li", { text: r.key + ": " + (r.error || "no curves: " + r.metrics.reason) })));
  };
  const panel = (id, title, el) => ui.el("section", { class: "panel", id }, ui.el("header", {}, ui.el("h3", { text: title })), ui.el("div", { class: "panel-body" }, el));
  root.append(controls(opts, redraw), legend(runs), body.notes,
    ui.el("div", { class: "compare-grid" }, panel("compare-curves", "Curves", body.charts),
      panel("compare-final-panel", "Final metrics", body.final), panel("compare-spec", "Spec differences", body.diff)));
  const load = async () => {
    await Promise.all(runs.map(async (r) => {
      const base = "/api/jobs/" + encodeURIComponent(r.project) + "/" + encodeURIComponent(r.name);
      try {
        [r.job, r.metrics] = await Promise.all([ui.fetchJSON(base), ui.fetchJSON(base + "/metrics")]);
        r.error = null;
      } catch (e) { r.error = e.message; }
    }));
    if (!alive()) return;
    redraw();
    const done = runs.every((r) => r.job && ["Succeeded", "Failed"].includes(r.job.status));
    if (!done) timer.id = setTimeout(load, POLL_MS);  // curves of finished runs do not change
  };
  load();
  return timer;
}

pages.compare = { title: "Compare runs", mount };
