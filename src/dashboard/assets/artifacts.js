// A job page's "Artifacts" panel: the files the job left to download (checkpoints, metrics.jsonl,
// the curves image, predictions, evaluation.json, overlays) with their sizes, from
// /api/jobs/P/N/artifacts; each links to /artifacts/file?path=PATH, which the server streams
// with Content-Disposition: attachment.
import { ui } from "./ui.js";

const LABELS = {
  checkpoint: "checkpoint", metrics: "metrics", curves: "curves image", predictions: "predictions",
  evaluation: "evaluation", overlay: "overlay",
};

export function formatBytes(n) {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = Number(n) || 0, u = 0;
  while (v >= 1024 && u < units.length - 1) { v /= 1024; u++; }
  return (u === 0 ? String(v) : v.toFixed(v < 10 ? 1 : 0)) + " " + units[u];
}

function row(base, item) {
  const href = base + "/artifacts/file?path=" + encodeURIComponent(item.path);
  return ui.el("tr", { dataset: { path: item.path, kind: item.kind } },
    ui.el("td", {}, ui.el("a", { href, download: item.name, class: "artifact-link", text: item.name })),
    ui.el("td", { text: LABELS[item.kind] || item.kind }),
    ui.el("td", { class: "num", text: formatBytes(item.size), title: item.size + " bytes" }),
    ui.el("td", { class: "muted small", text: item.dir }));
}

// The panel's content from the artifacts document.
export function artifactsView(base, doc) {
  if (!doc.available) {
    return ui.el("div", {},
      ui.el("p", { class: "muted", text: "No artifacts yet. A training run leaves them in its OUTPUT_DIR, a predict run in its --out DIR. Looked at:" }),
      ui.el("ul", { class: "plain muted small" }, (doc.tried || []).map((t) => ui.el("li", { text: t.reason }))));
  }
  const overlays = doc.items.filter((i) => i.kind === "overlay");
  const files = doc.items.filter((i) => i.kind !== "overlay");
  const head = ui.el("thead", {}, ui.el("tr", {}, ["File", "What", "Size", "Directory"].map((h) => ui.el("th", { text: h }))));
  const total = doc.items.reduce((n, i) => n + (i.size || 0), 0);
  return ui.el("div", {},
    ui.el("table", { class: "grid-table artifacts", id: "artifacts-table" }, head, ui.el("tbody", {}, files.map((i) => row(base, i)))),
    overlays.length ? ui.el("details", { class: "raw", id: "artifacts-overlays" },
      ui.el("summary", { text: overlays.length + " overlay images (" + formatBytes(overlays.reduce((n, i) => n + i.size, 0)) + ")" }),
      ui.el("table", { class: "grid-table artifacts" }, ui.el("tbody", {}, overlays.map((i) => row(base, i))))) : null,
    ui.el("p", { class: "muted small", text: doc.items.length + " files, " + formatBytes(total) + (doc.truncated ? " (a directory had more files than listed)" : "") }));
}

// Loads the panel of `page` (job.js's JobPage: base, body(), panels, alive, notStarted()).
export async function loadArtifacts(page) {
  const doc = await ui.fetchJSON(page.base + "/artifacts").catch((e) => ({ available: false, tried: [{ reason: e.message }] }));
  if (!page.alive) return;
  page.panels.artifacts.hidden = !doc.available && page.notStarted();
  const key = JSON.stringify(doc);
  if (key === page.last.artifacts) return;
  page.last.artifacts = key;
  page.body("artifacts").replaceChildren(artifactsView(page.base, doc));
}
