// A job page's "Evaluation" panel: the TuSimple metric (Accuracy, FP, FN) as numbers and the
// per-frame table of evaluation.json (what `scnn-train eval` writes beside its --pred file;
// /api/jobs/P/N/evaluation), sortable, worst first, with the selected frame's overlay beside it.
// A job without an evaluation shows its last validation record of metrics.jsonl instead (the
// trainer's validation is the same metric), or nothing.
import { fmtNum } from "./chart.js";
import { ui } from "./ui.js";

const MAX_ROWS = 500;  // drawn at once; sorting still runs over every frame
const COLUMNS = [["rank", "#"], ["accuracy", "Accuracy"], ["fp", "FP"], ["fn", "FN"], ["gt_lanes", "GT lanes"],
  ["pred_lanes", "pred. lanes"], ["raw_file", "frame"]];

const pct = (v) => (v === null || v === undefined ? "–" : (100 * v).toFixed(2) + " %");

function scores(title, doc, note) {
  const tile = (label, value, id) => ui.el("div", { class: "score", id }, ui.el("span", { class: "score-label", text: label }), ui.el("b", { text: value }));
  return ui.el("div", { class: "scores" }, ui.el("span", { class: "scores-title", text: title }),
    tile("Accuracy", pct(doc.accuracy), "eval-accuracy"), tile("FP", fmtNum(doc.fp), "eval-fp"),
    tile("FN", fmtNum(doc.fn), "eval-fn"), note ? ui.el("span", { class: "muted small", text: note }) : null);
}

// Sorted copy of the rows: by `key` (ascending, or descending with dir < 0), ties in the given order.
export function sortRows(rows, key, dir) {
  return rows.map((r, i) => [r, i]).sort(([a, i], [b, j]) => {
    const x = key === "rank" ? i : a[key], y = key === "rank" ? j : b[key];
    return (x < y ? -dir : x > y ? dir : 0) || i - j;
  }).map(([r]) => r);
}

function frameTable(page, doc, state) {
  const rows = doc.rows.map((r, i) => ({ ...r, rank: i + 1 }));
  const sorted = sortRows(rows, state.key, state.dir);
  const figure = ui.el("figure", { class: "eval-frame", id: "eval-frame" });
  const show = (r, tr) => {
    state.selected = r.raw_file;
    for (const other of tr.parentNode.children) other.classList.toggle("selected", other === tr);
    const src = r.overlay ? page.base + "/overlays/" + encodeURIComponent(r.overlay) : null;
    figure.replaceChildren(src ? ui.el("a", { href: src, target: "_blank", rel: "noopener" }, ui.el("img", { src, alt: "overlay of " + r.raw_file })) :
      ui.el("p", { class: "muted", text: "No overlay for this frame." }),
    ui.el("figcaption", { text: "#" + r.rank + " " + r.raw_file + " · accuracy " + pct(r.accuracy) + " · FP " + fmtNum(r.fp) + " · FN " + fmtNum(r.fn) }));
  };
  const body = ui.el("tbody", {}, sorted.slice(0, MAX_ROWS).map((r) => {
    const tr = ui.el("tr", { tabindex: "0", dataset: { frame: r.raw_file }, onclick: () => show(r, tr),
      onkeydown: (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); show(r, tr); } } },
    COLUMNS.map(([k]) => ui.el("td", { class: k === "raw_file" ? "frame" : "num", text: k === "accuracy" ? pct(r[k]) : k === "raw_file" ? r[k] : fmtNum(r[k]) })));
    return tr;
  }));
  const head = ui.el("tr", {}, COLUMNS.map(([k, label]) => ui.el("th", {
    scope: "col", "aria-sort": state.key === k ? (state.dir > 0 ? "ascending" : "descending") : "none",
  }, ui.el("button", { type: "button", class: "sort", dataset: { key: k }, text: label, onclick: () => {
    state.dir = state.key === k ? -state.dir : 1;
    state.key = k;
    page.body("evaluation").querySelector(".eval-table-wrap").replaceWith(frameTable(page, doc, state));
  } }))));
  const wrap = ui.el("div", { class: "eval-table-wrap" },
    ui.el("div", { class: "eval-table-box" }, ui.el("table", { class: "grid-table eval-table", id: "eval-table" }, ui.el("thead", {}, head), body),
      sorted.length > MAX_ROWS ? ui.el("p", { class: "muted small", text: "the first " + MAX_ROWS + " of " + sorted.length + " frames in this order" }) : null),
    figure);
  const first = [...body.children].find((tr) => tr.dataset.frame === state.selected) || body.firstChild;
  if (first) show(sorted[[...body.children].indexOf(first)], first);
  return wrap;
}

function evaluationView(page, doc, state) {
  return ui.el("div", {},
    scores("TuSimple metric", doc, doc.frames + " frames · " + doc.path),
    ui.el("p", { class: "muted small", text: "Frames worst first (lowest accuracy, then most misses, then most false positives); click a header to sort, a row to see its overlay." }),
    frameTable(page, doc, state));
}

function lastValidation(metrics) {
  const val = metrics && metrics.available && metrics.kinds && metrics.kinds.val;
  if (!val || !(val.accuracy || []).length) return null;
  const i = val.accuracy.length - 1;
  return { step: (val.step || [])[i], accuracy: val.accuracy[i], fp: (val.fp || [])[i], fn: (val.fn || [])[i] };
}

// Loads the panel of `page` (job.js's JobPage: base, body(), panels, alive, last).
export async function loadEvaluation(page) {
  let doc = await ui.fetchJSON(page.base + "/evaluation").catch(() => ({ available: false }));
  if (!doc.available) {
    const val = lastValidation(await ui.fetchJSON(page.base + "/metrics").catch(() => null));
    doc = val ? { available: false, val } : { available: false };
  }
  if (!page.alive) return;
  page.panels.evaluation.hidden = !doc.available && !doc.val;
  if (page.panels.evaluation.hidden) return;
  const key = JSON.stringify(doc);
  if (key === page.last.evaluation) return;
  page.last.evaluation = key;
  page.evalState = page.evalState || { key: "rank", dir: 1, selected: null };
  page.body("evaluation").replaceChildren(doc.available ? evaluationView(page, doc, page.evalState) :
    scores("Last validation", doc.val, "step " + doc.val.step + " of metrics.jsonl; no evaluation.json (scnn-train eval writes one beside its --pred file)"));
}
