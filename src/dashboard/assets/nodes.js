// The Nodes/GPUs page: per node, every GPU as a bar split into the shares the running pods hold
// (a GPU shared 0.5/0.25 between two jobs shows two labelled segments); where the backend cannot
// tell which device a pod holds (Kubernetes), the node's pods are shown as one bar of the node's
// GPUs. Below: utilization and memory over time from the server's nvidia-smi sampler, or why
// there are none. Polls /api/gpus and /api/gpus/metrics every few seconds.
import { pages, ui } from "./ui.js";
import { pollPage } from "./poll.js";

const POLL_MS = 3000;

// A stable colour per job, from a palette that keeps white labels readable.
const PALETTE = ["#2f6fec", "#17794a", "#8e44ad", "#b34700", "#0b6e6e", "#c0392b", "#5d6d7e", "#7d6608", "#6c5ce7", "#0e7c66"];  // white text on each: >= 4.5:1
let colorOf = new Map();  // job -> colour, assigned in name order on each refresh
function assignColors(nodes) {
  const jobs = new Set();
  for (const n of nodes) {
    for (const d of n.devices) for (const s of d.shares) jobs.add(s.job);
    for (const u of n.unassigned) jobs.add(u.job || u.pod);
  }
  colorOf = new Map([...jobs].sort().map((j, i) => [j, PALETTE[i % PALETTE.length]]));
}
const jobColor = (job) => colorOf.get(job) || PALETTE[0];

function shareSegment(job, pod, share, width) {
  const name = job.split("/").pop() || pod;
  const s = ui.el("a", { class: "gpu-seg", href: job.includes("/") ? ui.jobHref(...job.split("/")) : undefined,
    title: job + " (pod " + pod + "): " + ui.gpus(share) + " GPU", dataset: { job } });
  s.style.width = (100 * width) + "%";
  s.style.background = jobColor(job);
  if (width >= 0.12) s.textContent = name + " " + (share < 1 ? ui.gpus(share) : "");
  return s;
}

function deviceRow(d) {
  const bar = ui.el("div", { class: "gpu-bar" }, d.shares.map((s) => shareSegment(s.job, s.pod, s.share, s.share)));
  const free = Math.max(0, 1 - Number(d.allocated || 0));
  return ui.el("div", { class: "gpu-row", dataset: { gpu: String(d.index) } },
    ui.el("span", { class: "gpu-name", text: "GPU " + d.index }), bar,
    ui.el("span", { class: "gpu-free", text: free > 0 ? ui.gpus(free) + " free" : "full" }));
}

function nodeCard(n) {
  const body = [];
  // Devices are drawn only where the backend says which pod holds which (not on Kubernetes).
  if (n.devicesKnown && n.devices.length) body.push(...n.devices.map(deviceRow));
  else if (!n.devices.length) body.push(ui.el("p", { class: "muted", text: "No GPUs on this node." }));
  if (n.unassigned.length) {
    // Pods whose devices the backend does not report: one bar for the node, scaled to its GPUs.
    const total = Math.max(1, Number(n.gpus || 0));
    const bar = ui.el("div", { class: "gpu-bar node" }, n.unassigned.map((u) => shareSegment(u.job || u.pod, u.pod, u.gpus, u.gpus / total)));
    body.push(ui.el("div", { class: "gpu-row unassigned" },
      ui.el("span", { class: "gpu-name", text: n.devicesKnown ? "other pods" : n.gpus + " GPUs" }), bar,
      ui.el("span", { class: "gpu-free", text: ui.gpus(n.gpusAllocated) + " / " + ui.gpus(n.gpus) })));
    body.push(ui.el("p", { class: "muted note", text: n.devicesKnown
      ? "Some pods hold GPU indices beyond this node's GPUs (the node list changed under them)."
      : "The backend does not report which device each pod holds (on Kubernetes the device plugin picks it on the node): the node's pods are shown by their GPU requests, against the node's allocatable GPUs." }));
  }
  const head = ui.el("div", { class: "node-head" },
    ui.el("h2", { text: n.name }),
    n.ready ? ui.el("span", { class: "tag " + (n.ready === "True" ? "ok" : "no"), text: n.ready === "True" ? "Ready" : "Ready: " + n.ready }) : null,
    ui.el("span", { class: "tag", text: ui.gpus(n.gpusAllocated) + " of " + n.gpus + " GPUs allocated" }),
    n.gpuCapacity !== undefined && n.gpuCapacity !== n.gpus ? ui.el("span", { class: "tag", text: "capacity " + n.gpuCapacity }) : null);
  return ui.el("section", { class: "card node", dataset: { node: n.name } }, head, ...body);
}

// A small time-series chart: `points` [[t, v], ...] with v in 0..max; null values leave gaps.
function chart(title, points, max, unit) {
  const W = 320, H = 90, P = 4;
  const svg = ui.svg("svg", { class: "ts", viewBox: "0 0 " + W + " " + H, preserveAspectRatio: "none", role: "img", "aria-label": title });
  svg.append(ui.svg("rect", { x: 0, y: 0, width: W, height: H, class: "ts-bg" }));
  for (const f of [0.25, 0.5, 0.75]) svg.append(ui.svg("line", { x1: 0, x2: W, y1: H - f * H, y2: H - f * H, class: "ts-grid" }));
  const ts = points.map((p) => p[0]);
  const t0 = Math.min(...ts), t1 = Math.max(...ts);
  const x = (t) => (t1 > t0 ? P + ((W - 2 * P) * (t - t0)) / (t1 - t0) : W - P);
  const y = (v) => H - P - ((H - 2 * P) * Math.min(v, max)) / (max || 1);
  let d = "", pen = false;
  for (const [t, v] of points) {
    if (v === null || v === undefined) { pen = false; continue; }
    d += (pen ? "L" : "M") + x(t).toFixed(1) + " " + y(v).toFixed(1);
    pen = true;
  }
  if (d) svg.append(ui.svg("path", { d, class: "ts-line" }));
  const last = [...points].reverse().find((p) => p[1] !== null && p[1] !== undefined);
  const span = points.length > 1 ? "last " + ui.formatAge(t1 - t0) : "";
  return ui.el("figure", { class: "ts-fig" },
    ui.el("figcaption", {}, ui.el("span", { text: title }),
      ui.el("b", { text: last ? (unit === "%" ? Math.round(last[1]) + " %" : Math.round(last[1]) + " " + unit) : "n/a" })), svg,
    ui.el("div", { class: "ts-axis" }, ui.el("span", { text: span }), ui.el("span", { text: "now" })));
}

function metricsSection(m) {
  const head = ui.el("h2", { class: "page-title", text: "Utilization and memory over time" });
  if (!m.available)
    return ui.el("section", { class: "card metrics", id: "gpu-metrics" }, head,
      ui.el("p", { class: "muted unavailable", text: "Not available: " + m.reason }));
  const rows = m.gpus.map((g) => {
    const memMax = Math.max(1, ...g.samples.map((s) => Number(s[3] || 0)));
    return ui.el("div", { class: "ts-gpu", dataset: { gpu: String(g.index) } },
      ui.el("div", { class: "ts-title", text: "GPU " + g.index + " · " + g.uuid }),
      chart("utilization", g.samples.map((s) => [s[0], s[1]]), 100, "%"),
      chart("memory used (of " + Math.round(memMax) + " MiB)", g.samples.map((s) => [s[0], s[2]]), memMax, "MiB"));
  });
  const n = m.gpus.length ? m.gpus[0].samples.length : 0;
  return ui.el("section", { class: "card metrics", id: "gpu-metrics" }, head,
    ui.el("p", { class: "muted", text: "From " + m.source + " every " + m.intervalSeconds + " s on this machine; " + n + " samples kept per GPU." }),
    m.lastError ? ui.errorBox("Last sample: " + m.lastError) : null,
    rows.length ? ui.el("div", { class: "ts-grid-wrap" }, rows) : ui.el("p", { class: "muted", text: "No samples yet." }));
}

pages.nodes = {
  title: "Nodes/GPUs",
  mount(root) {
    const summary = ui.el("span", { class: "count" });
    const status = ui.el("div");
    const list = ui.el("div", { class: "node-list" });
    const metrics = ui.el("div");
    root.append(ui.el("div", { class: "toolbar" }, ui.el("h2", { class: "page-title", text: "Nodes and GPUs" }), summary), status, list, metrics);
    return pollPage({
      paths: ["/api/gpus", "/api/gpus/metrics"], status, what: "the nodes", intervalMs: POLL_MS, onJobs: true,
      show(nodes, m) {
        const total = nodes.reduce((s, n) => s + Number(n.gpus || 0), 0);
        const used = nodes.reduce((s, n) => s + Number(n.gpusAllocated || 0), 0);
        summary.textContent = nodes.length + " node" + (nodes.length === 1 ? "" : "s") + " · " + ui.gpus(used) + " of " + total + " GPUs allocated";
        assignColors(nodes);
        list.replaceChildren(...nodes.map(nodeCard));
        metrics.replaceChildren(metricsSection(m));
      },
    });
  },
};
