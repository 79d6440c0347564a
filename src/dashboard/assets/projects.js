// The Projects page: per project, the fair-share picture of the scheduler documentation as a bar:
// GPUs allocated within the deserved quota, allocated over quota, and requested but pending, with
// the deserved-quota line and the fair-share line, plus the scheduler's explanation lines. Kept
// live by polling /api/projects every few seconds and on every change of the jobs stream.
import { pages, ui } from "./ui.js";
import { pollPage } from "./poll.js";

const POLL_MS = 3000;

// The bar's parts in GPUs: [within quota, over quota, pending].
function parts(p) {
  const quota = Number(p.gpuQuota || 0), alloc = Number(p.gpusAllocated || 0);
  const requested = Math.max(alloc, Number(p.gpusRequested || 0));
  return { quota, alloc, within: Math.min(alloc, quota), over: Math.max(0, alloc - quota),
           pending: requested - alloc, requested, fair: p.fairShare === null ? null : Number(p.fairShare || 0) };
}

const pct = (v, scale) => (scale > 0 ? (100 * v) / scale : 0) + "%";

function segment(cls, gpus, scale, label) {
  const s = ui.el("div", { class: "pj-seg " + cls, title: label + ": " + ui.gpus(gpus) + " GPUs" });
  s.style.width = pct(gpus, scale);
  if (gpus > 0 && gpus / scale > 0.06) s.textContent = ui.gpus(gpus);
  return s;
}

function marker(cls, gpus, scale, label) {
  const end = scale > 0 && gpus / scale > 0.5 ? " end" : "";  // its label to the left of the line
  const m = ui.el("div", { class: "pj-mark " + cls + end, title: label + ": " + ui.gpus(gpus) + " GPUs" },
    ui.el("span", { text: label + " " + ui.gpus(gpus) }));
  m.style.left = pct(gpus, scale);
  return m;
}

function card(p, scale) {
  const v = parts(p);
  const bar = ui.el("div", { class: "pj-bar" },
    segment("within", v.within, scale, "Allocated within quota"),
    segment("over", v.over, scale, "Allocated over quota"),
    segment("pending", v.pending, scale, "Requested, pending"));
  const track = ui.el("div", { class: "pj-track", title: "one tick per GPU" }, bar,
    marker("quota", v.quota, scale, "quota"), v.fair !== null && (v.fair > 0 || v.requested > 0) ? marker("fair", v.fair, scale, "fair share") : null);
  if (scale <= 64) track.style.backgroundSize = (100 / scale) + "% 100%";  // a tick per GPU
  const chips = ui.el("div", { class: "pj-chips" },
    ui.el("span", { class: "tag", text: "quota " + ui.gpus(v.quota) }),
    ui.el("span", { class: "tag " + (p.overQuota ? "ok" : "no"), text: p.overQuota ? "over quota allowed" : "limited to quota" }),
    ui.el("span", { class: "tag", text: "allocated " + ui.gpus(v.alloc) }),
    v.over > 0 ? ui.el("span", { class: "tag over", text: "over quota " + ui.gpus(v.over) }) : null,
    v.fair === null
      ? ui.el("span", { class: "tag", text: "fair share n/a", title: "this backend does not compute the fair share (on Kubernetes the KAI scheduler does, in the cluster)" })
      : ui.el("span", { class: "tag", text: "fair share " + ui.gpus(v.fair) }),
    ui.el("span", { class: "tag", text: (p.runningJobs || 0) + " running" }),
    ui.el("span", { class: "tag" + (p.pendingJobs ? " pending" : ""), text: (p.pendingJobs || 0) + " pending" }));
  const why = (p.explanation || []).length
    ? ui.el("ul", { class: "pj-why" }, p.explanation.map((line) => ui.el("li", { text: line })))
    : null;
  return ui.el("section", { class: "card pj", dataset: { project: p.name } },
    ui.el("div", { class: "pj-head" }, ui.el("h2", { text: p.name }), chips), track, why);
}

function legend() {
  const item = (cls, text) => ui.el("span", { class: "lg" }, ui.el("i", { class: "pj-seg " + cls }), text);
  return ui.el("div", { class: "legend" },
    item("within", "allocated within quota"), item("over", "allocated over quota (preemptible)"),
    item("pending", "requested, pending"),
    ui.el("span", { class: "lg" }, ui.el("i", { class: "lg-line quota" }), "deserved quota"),
    ui.el("span", { class: "lg" }, ui.el("i", { class: "lg-line fair" }), "fair share"));
}

pages.projects = {
  title: "Projects",
  mount(root) {
    const list = ui.el("div", { class: "pj-list" });
    const summary = ui.el("span", { class: "count" });
    const status = ui.el("div");
    root.append(ui.el("div", { class: "toolbar" }, ui.el("h2", { class: "page-title", text: "Projects" }), legend(), summary), status, list);
    return pollPage({
      paths: ["/api/projects", "/api/nodes"], status, what: "the projects", intervalMs: POLL_MS, onJobs: true,
      show(projects, nodes) {
        const total = nodes.reduce((s, n) => s + Number(n.gpus || 0), 0);
        // One scale for every bar: the cluster's GPUs, or more when a project asks for more.
        let scale = total;
        for (const p of projects) {
          const v = parts(p);
          scale = Math.max(scale, v.quota, v.requested, v.fair, v.alloc);
        }
        scale = scale || 1;
        summary.textContent = projects.length + " project" + (projects.length === 1 ? "" : "s") + " · " +
          ui.gpus(total) + " GPUs in the cluster · bars to " + ui.gpus(scale) + " GPUs";
        list.replaceChildren(...projects.map((p) => card(p, scale)));
        if (!projects.length) list.append(ui.el("p", { class: "empty", text: "No projects yet (lanectl project create NAME --gpu-quota N)." }));
      },
    });
  },
};
