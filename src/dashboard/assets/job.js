// A job's page (#/jobs/PROJECT/NAME): status and times, a running trainer's progress and ETA,
// the training curves of its metrics.jsonl as interactive SVG charts (chart.js), the log tail
// following live, pods with their nodes and GPUs, events, the spec (secret values arrive masked
// from the server) and the prediction overlays (curves and overlays hidden while a job that has
// none has not started), and its actions when the dashboard serves them (actions.js). Everything polls the JSON API while the job runs and stops when the page
// is left.
import { mountActions } from "./actions.js";
import { loadArtifacts } from "./artifacts.js";
import { drawCharts } from "./chart.js";
import { loadEvaluation } from "./eval_view.js";
import { shellQuoted } from "./smoothing.js";
import { pages, ui } from "./ui.js";

const FINISHED = new Set(["Succeeded", "Failed", "Deleted"]);
const POLL_JOB_MS = 2000, POLL_LOG_MS = 1000, POLL_METRICS_MS = 3000, POLL_OVERLAYS_MS = 10000, POLL_IDLE_MS = 15000;

const NOT_STARTED = new Set(["Pending", "Suspended"]);
const api = (p) => "/api/jobs/" + encodeURIComponent(p.project) + "/" + encodeURIComponent(p.name);

// ---- times ----

function duration(from, to) {
  const a = Date.parse(from || ""), b = to ? Date.parse(to) : Date.now();
  if (Number.isNaN(a) || Number.isNaN(b)) return "–";
  return ui.formatAge(b - a);
}

// scnn-train's progress line ("epoch 1/3 step 40/300 loss ... img/s ETA 00:05:12", printed every
// --log-every steps): the last one in `text` as {epoch, epochs, step, steps, eta}, or null.
const PROGRESS_LINE = /\bepoch (\d+)\/(\d+) step (\d+)\/(\d+) .*\bETA (\S+)/;
function lastProgress(text) {
  const lines = (text || "").split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = PROGRESS_LINE.exec(lines[i]);
    if (m) return { epoch: +m[1], epochs: +m[2], step: +m[3], steps: +m[4], eta: m[5] };
  }
  return null;
}

// ---- the other sections ----

const kv = (rows) => ui.el("dl", { class: "kv" }, rows.filter(Boolean).flatMap(([k, v]) => [ui.el("dt", { text: k }), ui.el("dd", {}, v)]));
const code = (text) => ui.el("code", { text });

function summary(job) {
  const gpus = ui.gpus(job.gpusAllocated) + " allocated of " + ui.gpus(job.gpusRequested) + " requested";
  return kv([
    ["Status", ui.el("span", {}, ui.statusBadge(job.status, job.statusReason), job.statusReason ? ui.el("span", { class: "reason", text: " " + job.statusReason }) : null)],
    ["Project", job.project], ["Type", job.type], ["Image", code(job.image || "–")], ["User", job.user || "–"],
    ["Created", ui.time(job.createdAt)], ["Started", ui.time(job.startedAt)], ["Finished", ui.time(job.finishedAt)],
    ["Run time", job.startedAt ? duration(job.startedAt, job.finishedAt) : "–"],
    ["Exit code", job.exitCode === null || job.exitCode === undefined ? "–" : String(job.exitCode)],
    ["GPUs", gpus], ["Pods", (job.podsRunning || 0) + " running, " + (job.podsPending || 0) + " pending"],
    ["Nodes", (job.nodes || []).join(", ") || "–"],
  ]);
}

function table(cls, head, rows, empty) {
  const body = rows.length ? rows : [ui.el("tr", {}, ui.el("td", { class: "empty", colspan: head.length, text: empty }))];
  return ui.el("div", { class: "table-scroll" }, ui.el("table", { class: "grid-table " + cls },
    ui.el("thead", {}, ui.el("tr", {}, head.map((h) => ui.el("th", { text: h })))), ui.el("tbody", {}, body)));
}

function podsTable(job) {
  const rows = (job.pods || []).map((p) => ui.el("tr", { dataset: { pod: p.name } },
    ui.el("td", {}, code(p.name)), ui.el("td", { text: p.role || "–" }), ui.el("td", {}, ui.statusBadge(p.status)),
    ui.el("td", { text: p.node || "–" }),
    ui.el("td", { text: (p.gpuIndices || []).length ? (p.gpuIndices.join(", ") + (p.gpuShare && p.gpuShare < 1 ? " (" + Math.round(p.gpuShare * 100) + "% each)" : "")) : "–" }),
    ui.el("td", { text: p.ip || "–" }), ui.el("td", { class: "nowrap" }, ui.time(p.startedAt))));
  return table("pods", ["Pod", "Role", "Status", "Node", "GPUs", "IP", "Started"], rows, "No pods.");
}

function eventsTable(job) {
  const rows = (job.events || []).map((e) => ui.el("tr", { class: e.type === "Warning" ? "warning" : "" },
    ui.el("td", { class: "nowrap" }, ui.time(e.time)), ui.el("td", { text: e.type }), ui.el("td", { text: e.reason }),
    ui.el("td", { text: e.source }), ui.el("td", { class: "message", text: e.message })));
  return table("events", ["Time", "Type", "Reason", "Source", "Message"], rows, "No events.");
}

function specView(job) {
  const s = job.spec || {};
  const words = [...(s.command || []), ...(s.args || [])];
  const list = (items) => items.length ? ui.el("ul", { class: "plain" }, items.map((i) => ui.el("li", {}, i))) : "–";
  return ui.el("div", {},
    kv([
      ["Image", code(s.image || "–")],
      ["Command", words.length ? ui.el("pre", { class: "cmd", text: shellQuoted(words) }) : "the image's entrypoint"],
      ["Environment", list((s.env || []).map((e) => code(e.name + "=" + e.value)))],
      ["GPU", ui.gpus(s.gpu) + (s.type === "Mpi" ? " × " + s.processes + " processes" : "")],
      ["CPU / memory", (s.cpu || "–") + " / " + (s.memory || "–")],
      ["Volumes", list([
        ...(s.pvcs || []).map((p) => code((p.claim || "(new " + p.size + ")") + " → " + p.mountPath + (p.readOnly ? " (ro)" : ""))),
        ...(s.volumes || []).map((v) => code(v.hostPath + " → " + v.containerPath + (v.readOnly ? " (ro)" : ""))),
      ])],
      s.workingDir ? ["Working dir", code(s.workingDir)] : null,
      (s.cliArgv || []).length ? ["Command line", ui.el("pre", { class: "cmd", text: shellQuoted(s.cliArgv) })] : null,
    ]),
    ui.el("details", { class: "raw" }, ui.el("summary", { text: "Full spec (JSON)" }), ui.el("pre", { text: JSON.stringify(s, null, 2) })));
}

// ---- the page ----

// The page's head and panels (each body "Loading…" until its first load), in the grid's order.
function layout(root, params) {
  const section = (id, title, ...extra) => {
    const body = ui.el("div", { class: "panel-body", id: id + "-body" }, ui.el("p", { class: "muted", text: "Loading…" }));
    return ui.el("section", { class: "panel", id }, ui.el("header", {}, ui.el("h3", { text: title }), ...extra), body);
  };
  const logTail = ui.el("select", { id: "log-tail", "aria-label": "Log lines" }, [200, 1000, 5000].map((n) => new Option("last " + n + " lines", n)));
  const logState = ui.el("span", { class: "muted small", id: "log-state" });
  const metricsNote = ui.el("span", { class: "muted small", id: "metrics-note" });
  const head = ui.el("div", { class: "job-head" },
    ui.el("a", { href: "#/jobs", class: "back", text: "← Jobs" }),
    ui.el("h2", { id: "job-title", text: params.name }), ui.el("span", { id: "job-badge" }),
    ui.el("span", { class: "muted", text: "project " + params.project }));
  const progress = ui.el("span", { id: "job-progress", class: "small" });
  progress.hidden = true;
  head.append(progress);
  const panels = {
    summary: section("summary", "Status"),
    charts: section("metrics", "Training curves", metricsNote),
    log: section("log", "Log", logState, logTail),
    pods: section("pods", "Pods"),
    events: section("events", "Events"),
    spec: section("spec", "Spec"),
    overlays: section("overlays", "Prediction overlays"),
    evaluation: section("evaluation", "Evaluation"),
    artifacts: section("artifacts", "Artifacts"),
  };
  // Shown after their first load, when there is something to show (eval_view.js, artifacts.js).
  panels.evaluation.hidden = panels.artifacts.hidden = true;
  const p = panels;
  root.append(head, ui.el("div", { class: "job-grid" }, p.summary, p.spec, p.charts, p.log, p.pods, p.events, p.overlays, p.evaluation, p.artifacts));
  const logPre = ui.el("pre", { class: "log", id: "log-text", tabindex: "0" });
  p.log.querySelector(".panel-body").replaceChildren(logPre);
  return { panels, logTail, logState, logPre, metricsNote, progress };
}

// One mounted job page: its panels, what it last drew, its timers. Each section polls on its own
// (`every`) until the page is left; a finished job's log, metrics and overlays are loaded once more
// and then no longer (`final`).
class JobPage {
  constructor(root, params) {
    this.root = root;
    this.params = params;
    this.base = api(params);
    this.alive = true;
    this.job = null;
    this.timers = new Set();
    this.hidden = new Set();  // chart series the user switched off: "Chart/key"
    this.last = {};           // the last document drawn per section, to redraw only on change
    this.final = { log: false, metrics: false, overlays: false };
    Object.assign(this, layout(root, params));
    this.logTail.addEventListener("change", () => { this.final.log = false; this.logPre.textContent = ""; this.loadLog(); });
    this.logPre.addEventListener("scroll", () => {
      if (this.final.log) return;
      const atBottom = this.logAtBottom();
      this.logState.textContent = atBottom ? "following" : "paused (scrolled up)";
      this.logState.className = "small " + (atBottom ? "following" : "muted");
    });
  }

  body(panel) { return this.panels[panel].querySelector(".panel-body"); }
  running() { return !this.job || !FINISHED.has(this.job.status); }
  finished() { return Boolean(this.job && FINISHED.has(this.job.status)); }
  notStarted() { return Boolean(this.job && NOT_STARTED.has(this.job.status)); }
  logAtBottom() { return this.logPre.scrollHeight - this.logPre.scrollTop - this.logPre.clientHeight < 24; }

  // Runs `fn` now and again after `ms` (longer once the job has finished) until the page is left.
  every(ms, fn) {
    const tick = async () => {
      if (!this.alive) return;
      try { await fn(); } catch (e) { /* shown by fn where it matters */ }
      if (!this.alive) return;
      const t = setTimeout(() => { this.timers.delete(t); tick(); }, this.running() ? ms : Math.max(ms, POLL_IDLE_MS));
      this.timers.add(t);
    };
    tick();
  }

  async loadJob() {
    let doc;
    try { doc = await ui.fetchJSON(this.base); } catch (e) {
      if (!this.alive) return;
      if (!this.job) {  // never loaded (no such job): say so once and poll nothing
        this.leave();
        this.root.querySelector(".job-grid").replaceChildren(ui.errorBox(e.message));
        return;
      }
      this.body("summary").replaceChildren(ui.errorBox(e.message));
      return;
    }
    if (!this.alive) return;
    this.job = doc;
    this.actions.update(doc);
    this.body("summary").replaceChildren(summary(doc));  // the run time moves on
    const key = JSON.stringify(doc);
    if (key === this.last.job) return;
    this.last.job = key;
    this.root.querySelector("#job-badge").replaceChildren(ui.statusBadge(doc.status, doc.statusReason));
    this.body("pods").replaceChildren(podsTable(doc));
    this.body("events").replaceChildren(eventsTable(doc));
    this.body("spec").replaceChildren(specView(doc));
  }

  async loadLog() {
    if (this.final.log) return;  // a finished job's log does not change
    const { job, logPre, logState } = this;
    if (job && (job.status === "Pending" || job.status === "Suspended") && !logPre.textContent) {
      logState.textContent = "no log until the job runs";
      logState.className = "small muted";
      return;
    }
    const wasDone = this.finished();
    let text;
    try { text = await ui.fetchText(this.base + "/logs?tail=" + this.logTail.value); } catch (e) {
      if (!this.alive) return;
      logState.textContent = e.message;
      return;
    }
    if (!this.alive) return;
    // Follow the end unless the reader scrolled up.
    const atBottom = this.logAtBottom();
    if (text !== logPre.textContent) {
      logPre.textContent = text || "";
      if (atBottom) logPre.scrollTop = logPre.scrollHeight;
    }
    logPre.classList.toggle("empty", !text);
    this.showProgress(wasDone ? null : lastProgress(text));
    this.final.log = wasDone;
    logState.textContent = wasDone ? "job finished" : atBottom ? "following" : "paused (scrolled up)";
    logState.className = "small " + (wasDone ? "muted" : atBottom ? "following" : "muted");
  }

  // The trainer's step of its total, its epoch and the ETA it printed, while the job runs.
  showProgress(p) {
    this.progress.hidden = !p;
    if (!p) return;
    const pct = p.steps > 0 ? Math.min(100, Math.round(100 * p.step / p.steps)) : 0;
    this.progress.replaceChildren(ui.el("progress", { max: p.steps, value: p.step }),
      ` step ${p.step}/${p.steps} (${pct}%) · epoch ${p.epoch}/${p.epochs} · ETA ${p.eta}`);
  }

  async loadMetrics() {
    if (this.final.metrics) return;
    const wasDone = this.finished();
    const doc = await ui.fetchJSON(this.base + "/metrics").catch((e) => ({ available: false, reason: e.message }));
    if (!this.alive) return;
    this.panels.charts.hidden = !doc.available && this.notStarted();  // nothing to show yet
    const key = JSON.stringify(doc);
    if (key === this.last.metrics) { this.final.metrics = wasDone; return; }
    this.last.metrics = key;
    if (!doc.available) {
      this.metricsNote.textContent = doc.path || "";
      this.body("charts").replaceChildren(ui.el("p", { class: "muted", id: "metrics-reason", text: "No training curves: " + doc.reason + "." }));
    } else {
      this.showMetrics(doc);
    }
    this.final.metrics = wasDone;
  }

  showMetrics(doc) {
    const charts = drawCharts(doc.kinds || {}, this.hidden);
    const records = Object.values(doc.kinds || {}).reduce((n, cols) => n + ((Object.values(cols)[0] || []).length), 0);
    this.metricsNote.textContent = doc.path + " · " + records + " records" + (doc.truncated ? " (the newest part of a large file)" : "") +
      " · written " + ui.formatAge(Date.now() - doc.modified) + " ago";
    // A file older than the job is not its output: an earlier run's, on a volume this job mounts
    // at its OUTPUT_DIR (e.g. an evaluation job of the trainer's image, on the restored volume).
    const started = Date.parse((this.job && this.job.startedAt) || "");
    const stale = !Number.isNaN(started) && doc.modified < started - 1000 ?
      ui.el("p", { class: "stale-note", id: "metrics-stale",
                   text: "Written before this job started: these are the curves of an earlier run that wrote " + doc.path +
                         " on a volume this job mounts, not this job's own." }) : null;
    // The run directory also holds scnn-train's TensorBoard event files (docs/training.md).
    const dir = /^[\w\/.,:@%+=-]+$/.test(doc.run_dir) ? doc.run_dir : "'" + doc.run_dir.replace(/'/g, "'\\''") + "'";
    const tensorboard = ui.el("p", { class: "muted small", id: "metrics-tensorboard" },
      "Run directory ", ui.el("code", { text: doc.run_dir }), " (as the job sees it) · TensorBoard: ",
      ui.el("code", { text: "tensorboard --logdir " + dir }));
    this.body("charts").replaceChildren(...[stale, charts.length ? ui.el("div", { class: "charts" }, charts) :
      ui.el("p", { class: "muted", text: "metrics.jsonl has no numeric values yet." }), tensorboard].filter(Boolean));
  }

  async loadOverlays() {
    if (this.final.overlays) return;
    const wasDone = this.finished();
    const doc = await ui.fetchJSON(this.base + "/overlays").catch((e) => ({ available: false, images: [], tried: [{ dir: "", reason: e.message }] }));
    if (!this.alive) return;
    this.panels.overlays.hidden = !doc.available && this.notStarted();
    const key = JSON.stringify(doc);
    this.final.overlays = wasDone;
    if (key === this.last.overlays) return;
    this.last.overlays = key;
    if (!doc.available) {
      const why = (doc.tried || []).map((t) => ui.el("li", { text: t.reason }));
      this.body("overlays").replaceChildren(ui.el("p", { class: "muted", text: "No prediction overlays. A predict run (scnn-train predict --out DIR) writes them to DIR/overlays; training writes none. Looked at:" }),
        ui.el("ul", { class: "plain muted small" }, why));
      return;
    }
    const figs = doc.images.map((img) => {
      const src = this.base + "/overlays/" + encodeURIComponent(img.name);
      return ui.el("figure", { class: "overlay" },
        ui.el("a", { href: src, target: "_blank", rel: "noopener" }, ui.el("img", { src, alt: img.name })),
        ui.el("figcaption", { text: img.name }));
    });
    this.body("overlays").replaceChildren(
      ui.el("p", { class: "muted small", id: "overlays-order", text: doc.dir + " · " + ((doc.order || "").startsWith("worst") ? "the " + doc.images.length + " worst frames of the evaluation" : "the newest " + doc.images.length) + (doc.truncated ? " (more on the volume)" : "") }),
      ui.el("div", { class: "overlays" }, figs));
  }

  // Starts the polling; returns the function the router calls when the page is left.
  start() {
    const { project, name } = this.params;
    // The list stream says when the status changes: fetch the job at once rather than at the next poll.
    this.unsubscribe = ui.jobsFeed.subscribe((jobs) => {
      const j = jobs.find((x) => x.project === project && x.name === name);
      if (j && this.job && j.status !== this.job.status) this.loadJob();
    });
    this.actions = mountActions(this);
    (async () => {
      await this.loadJob();
      this.every(POLL_JOB_MS, () => this.loadJob());
      this.every(POLL_LOG_MS, () => this.loadLog());
      this.every(POLL_METRICS_MS, () => this.loadMetrics());
      this.every(POLL_OVERLAYS_MS, () => this.loadOverlays());
      this.every(POLL_OVERLAYS_MS, () => loadEvaluation(this));
      this.every(POLL_OVERLAYS_MS, () => loadArtifacts(this));
    })();
    return () => this.leave();
  }

  leave() {
    this.alive = false;
    this.unsubscribe();
    for (const t of this.timers) clearTimeout(t);
  }
}

pages.job = { title: (p) => p.name + " (" + p.project + ")", mount: (root, params) => new JobPage(root, params).start() };
