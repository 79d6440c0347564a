// The Snapshots page: the snapshots (as `lanectl snapshot list`) and the lineage graph
// (/api/lineage: volume -> job -> snapshot -> restored volume -> job -> derived snapshot) drawn
// left to right in layers as SVG; clicking (or hovering) a node shows its metadata (job
// environment values of secret names arrive masked from the server).
import { fmtNum } from "./chart.js";
import { pages, ui } from "./ui.js";
import { pollPage } from "./poll.js";

const POLL_MS = 5000;
const NODE_W = 168, NODE_H = 44, GAP_X = 64, GAP_Y = 18, PAD = 12;
const KIND_LABEL = { snapshot: "snapshot", volume: "volume", job: "job" };

// Longest-path layers (a node sits right of everything it comes from); cycles cannot loop.
function layers(graph) {
  const layer = new Map(graph.nodes.map((n) => [n.id, 0]));
  for (let round = 0; round < graph.nodes.length; round++) {
    let changed = false;
    for (const e of graph.edges) {
      const want = layer.get(e.from) + 1;
      if (layer.has(e.to) && want > layer.get(e.to) && want < graph.nodes.length) { layer.set(e.to, want); changed = true; }
    }
    if (!changed) break;
  }
  const cols = [];
  for (const n of graph.nodes) (cols[layer.get(n.id)] ||= []).push(n);
  // Order each column by the mean row of its predecessors (fewer crossings), then by name.
  const row = new Map();
  const preds = new Map(graph.nodes.map((n) => [n.id, []]));
  for (const e of graph.edges) if (preds.has(e.to)) preds.get(e.to).push(e.from);
  for (const col of cols) {
    if (!col) continue;
    const key = (n) => {
      const rs = preds.get(n.id).filter((p) => row.has(p)).map((p) => row.get(p));
      return rs.length ? rs.reduce((a, b) => a + b, 0) / rs.length : Infinity;
    };
    col.sort((a, b) => key(a) - key(b) || a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name));
    col.forEach((n, i) => row.set(n.id, i));
  }
  return cols.filter(Boolean);
}

function short(text, n) { return text.length > n ? text.slice(0, n - 1) + "…" : text; }

function subtitle(n) {
  const m = n.meta || {};
  if (n.kind === "snapshot") return m.exists === false ? "deleted" : ui.formatTime(m.created).slice(0, 16);
  if (n.kind === "volume") return m.exists === false ? "deleted" : (m.size || "") + (m.createdBy ? " · " + m.createdBy.replace(/^job\/[^/]*\//, "by ") : "");
  return m.image ? short(m.image, 26) : "project " + (m.project || "?");
}

function draw(graph, onSelect) {
  const cols = layers(graph);
  const pos = new Map();
  const rows = Math.max(1, ...cols.map((c) => c.length));
  const W = PAD * 2 + cols.length * NODE_W + Math.max(0, cols.length - 1) * GAP_X;
  const H = PAD * 2 + rows * NODE_H + (rows - 1) * GAP_Y;
  cols.forEach((col, ci) => {
    const offset = ((rows - col.length) * (NODE_H + GAP_Y)) / 2;  // centre short columns
    col.forEach((n, ri) => pos.set(n.id, { x: PAD + ci * (NODE_W + GAP_X), y: PAD + offset + ri * (NODE_H + GAP_Y) }));
  });
  const svg = ui.svg("svg", { class: "lineage", width: W, height: H, viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": "lineage graph" });
  svg.append(ui.svg("defs", {}, ui.svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
    ui.svg("path", { d: "M0 0 L10 5 L0 10 z", class: "arrowhead" }))));
  for (const e of graph.edges) {
    const a = pos.get(e.from), b = pos.get(e.to);
    if (!a || !b) continue;
    const x1 = a.x + NODE_W, y1 = a.y + NODE_H / 2, x2 = b.x, y2 = b.y + NODE_H / 2, mx = (x1 + x2) / 2;
    const path = ui.svg("path", { d: `M${x1} ${y1} C${mx} ${y1} ${mx} ${y2} ${x2} ${y2}`, class: "edge " + e.kind.replace(/ /g, "-"), "marker-end": "url(#arrow)" });
    path.append(ui.svg("title", {}, document.createTextNode(e.kind)));
    svg.append(path);
    if (x2 > x1) svg.append(ui.svg("text", { x: mx, y: (y1 + y2) / 2 - 4, class: "edge-label" }, document.createTextNode(e.kind)));
  }
  for (const n of graph.nodes) {
    const p = pos.get(n.id);
    const gone = n.meta && n.meta.exists === false;
    const g = ui.svg("g", { class: "gnode " + n.kind + (gone ? " gone" : ""), transform: `translate(${p.x} ${p.y})`, tabindex: 0, "data-id": n.id });
    g.append(ui.svg("title", {}, document.createTextNode(KIND_LABEL[n.kind] + " " + n.name)));
    g.append(ui.svg("rect", { width: NODE_W, height: NODE_H, rx: 6 }));
    g.append(ui.svg("text", { x: 10, y: 18, class: "gname" }, document.createTextNode(short(n.label || n.name, 21))));
    g.append(ui.svg("text", { x: 10, y: 34, class: "gsub" }, document.createTextNode(short(subtitle(n), 25))));
    const select = () => onSelect(n, g);
    g.addEventListener("click", select);
    g.addEventListener("mouseenter", select);
    g.addEventListener("focus", select);
    svg.append(g);
  }
  return svg;
}

// The details' labels of the lineage records' keys (src/dashboard/lineage_graph.cpp); other keys
// are spelled out from their camelCase or snake_case.
const LABELS = {
  project: "Project", namespace: "Namespace", image: "Image", command: "Command", codeVersion: "Code version",
  gpu: "GPUs", processes: "Processes", user: "User", workingDir: "Working directory", pvcs: "Volumes",
  record: "Record", size: "Size", storageClass: "Storage class", createdBy: "Created by", created: "Created",
  files: "Files", contentDigest: "Content digest", parentSnapshot: "Parent snapshot", parentVolume: "Parent volume",
  datasetDigest: "Dataset digest", volume: "Volume", job: "Job",
  accuracy: "Accuracy", fp: "False positive rate", fn: "False negative rate", loss: "Loss", lr: "Learning rate",
};
const HIDDEN = new Set(["exists", "bytes", "env", "metadata", "finalMetrics"]);  // shown otherwise

function label(key) {
  if (LABELS[key]) return LABELS[key];
  const words = key.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/[_-]+/g, " ").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

// A field's value as a node: times in the dashboard's format, numbers rounded (4 significant
// digits), volumes as "claim → path", lists joined.
function value(key, v) {
  if (v === null || v === undefined || v === "") return "–";
  if (key === "created") return ui.time(v);
  if (typeof v === "number") return fmtNum(v);
  if (key === "pvcs" && Array.isArray(v))
    return v.map((p) => (p.claim || "(new " + (p.size || "") + ")") + " → " + (p.mountPath || "?") + (p.readOnly ? " (ro)" : "")).join(", ");
  if (Array.isArray(v)) return v.map((x) => (typeof x === "object" ? JSON.stringify(x) : String(x))).join(" ");
  if (typeof v === "object") return JSON.stringify(v);
  if (typeof v === "boolean") return v ? "yes" : "no";
  return String(v);
}

const field = (k, v) => [ui.el("dt", { text: label(k) }), ui.el("dd", { dataset: { key: k } }, value(k, v))];

function details(n) {
  const m = n.meta || {};
  const rows = Object.entries(m).filter(([k]) => !HIDDEN.has(k)).flatMap(([k, v]) => field(k, v));
  if (m.exists === false) rows.unshift(ui.el("dt", { text: "State" }), ui.el("dd", { text: "deleted" }));
  // The environment's and the metadata's keys are names the user chose: shown as they are.
  const block = (title, obj, named) => Object.keys(obj || {}).length
    ? [ui.el("h4", { text: title }), ui.el("dl", {}, Object.entries(obj).flatMap(([k, v]) =>
        named ? field(k, v) : [ui.el("dt", { text: k }), ui.el("dd", {}, value(k, v))]))]
    : [];
  return ui.el("div", { class: "details", dataset: { id: n.id } },
    ui.el("h3", {}, ui.el("span", { class: "kind " + n.kind, text: KIND_LABEL[n.kind] }), " " + n.name),
    ui.el("dl", {}, rows), ...block("Environment", m.env), ...block("Metadata", m.metadata), ...block("Final metrics", m.finalMetrics, true),
    n.kind === "job" && m.project ? ui.el("a", { href: ui.jobHref(m.project, n.name), text: "job page →" }) : null);
}

function bytes(n) {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = Number(n || 0), u = 0;
  while (v >= 1024 && u < units.length - 1) { v /= 1024; u++; }
  return (u ? v.toFixed(1) : String(v)) + " " + units[u];
}

function snapshotTable(items) {
  if (!items.length) return ui.el("p", { class: "muted", text: "No snapshots yet (lanectl snapshot create --pvc CLAIM)." });
  const head = ["NAME", "VOLUME", "JOB", "CREATED", "FILES", "SIZE"];
  return ui.el("div", { class: "table-scroll" }, ui.el("table", { class: "jobs snaps" },
    ui.el("thead", {}, ui.el("tr", {}, head.map((h) => ui.el("th", { text: h })))),
    ui.el("tbody", {}, items.map((s) => ui.el("tr", { dataset: { snapshot: s.name } },
      ui.el("td", { text: s.name }), ui.el("td", { text: s.volume }), ui.el("td", { text: s.job || "-" }),
      ui.el("td", { class: "when" }, ui.time(s.created)),
      ui.el("td", { class: "num", text: String(s.fileCount) }),
      ui.el("td", { class: "num", text: bytes(s.totalBytes) }))))));
}

pages.snapshots = {
  title: "Snapshots",
  mount(root) {
    const status = ui.el("div");
    const graphBox = ui.el("div", { class: "graph-box" });
    const side = ui.el("aside", { class: "graph-side" }, ui.el("p", { class: "muted", text: "Click or hover a node for its metadata." }));
    const table = ui.el("div");
    root.append(ui.el("div", { class: "toolbar" }, ui.el("h2", { class: "page-title", text: "Lineage" }),
      ui.el("span", { class: "legend" },
        ...["volume", "job", "snapshot"].map((k) => ui.el("span", { class: "lg" }, ui.el("i", { class: "lg-node " + k }), k)))),
      status, ui.el("section", { class: "card graph-card" }, graphBox, side),
      ui.el("h2", { class: "page-title", text: "Snapshots" }), table);
    let lastDoc = "", selected = null;
    return pollPage({
      paths: ["/api/lineage", "/api/snapshots"], status, what: "the snapshots", intervalMs: POLL_MS,
      show(graph, snaps) {
        const doc = JSON.stringify([graph, snaps]);
        if (doc === lastDoc) return;  // unchanged: keep the selection and the scroll position
        lastDoc = doc;
        table.replaceChildren(snapshotTable(snaps.items || []));
        side.hidden = !graph.nodes.length;  // nothing to click
        if (!graph.nodes.length) {
          graphBox.replaceChildren(ui.el("p", { class: "muted", text: "No lineage yet: snapshots, the jobs that took them and the volumes restored from them appear here." }));
          return;
        }
        graphBox.replaceChildren(draw(graph, (n, g) => {
          for (const el of graphBox.querySelectorAll(".gnode.selected")) el.classList.remove("selected");
          g.classList.add("selected");
          selected = n.id;
          side.replaceChildren(details(n));
        }));
        const again = selected && graph.nodes.find((n) => n.id === selected);
        if (again) side.replaceChildren(details(again));
      },
    });
  },
};
