// A job's page (#/jobs/PROJECT/NAME): status and times, the training curves of its
// metrics.jsonl as interactive SVG charts, the log tail following live, pods with their nodes and
// GPUs, events, the spec (secret values arrive masked from the server) and the prediction
// overlays. Everything polls the JSON API while the job runs and stops when the page is left.
"use strict";

(() => {
  const FINISHED = new Set(["Succeeded", "Failed", "Deleted"]);
  const POLL_JOB_MS = 2000, POLL_LOG_MS = 1000, POLL_METRICS_MS = 3000, POLL_OVERLAYS_MS = 10000, POLL_IDLE_MS = 15000;
  const COLORS = ["#2f6fec", "#e8590c", "#1f9d55", "#ae3ec9", "#d6336c", "#0c8599", "#f08c00", "#5c7cfa"];

  // The charts drawn from metrics.jsonl: [title, kind, [[key, label], ...], y-axis format].
  const CHARTS = [
    ["Loss", "train", [["loss", "loss"], ["seg_loss", "segmentation"], ["exist_loss", "existence"]]],
    ["Learning rate", "train", [["lr", "learning rate"]]],
    ["Throughput (images/s)", "train", [["images_per_s", "images/s"]]],
    ["Validation", "val", [["accuracy", "accuracy"], ["fp", "FP"], ["fn", "FN"]]],
  ];
  const X_KEYS = new Set(["step", "epoch", "frames"]);

  const api = (p) => "/api/jobs/" + encodeURIComponent(p.project) + "/" + encodeURIComponent(p.name);

  // ---- numbers and times ----

  function fmtNum(v) {
    if (v === null || v === undefined || Number.isNaN(v)) return "–";
    const a = Math.abs(v);
    if (a !== 0 && (a < 1e-3 || a >= 1e6)) return v.toExponential(2).replace(/\.?0+e/, "e");
    if (Number.isInteger(v)) return String(v);
    return String(Number(v.toPrecision(4)));
  }

  function fmtTime(t) {
    if (!t) return "–";
    const d = new Date(t);
    return Number.isNaN(d.getTime()) ? t : d.toLocaleString();
  }

  function duration(from, to) {
    const a = Date.parse(from || ""), b = to ? Date.parse(to) : Date.now();
    if (Number.isNaN(a) || Number.isNaN(b)) return "–";
    return ui.formatAge(b - a);
  }

  // Ticks at 1, 2 or 5 times a power of ten, about `n` of them over [lo, hi].
  function niceTicks(lo, hi, n) {
    if (!(hi > lo)) { const d = Math.abs(lo) || 1; lo -= d / 2; hi += d / 2; }
    const raw = (hi - lo) / n, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw);
    // The axis runs from the tick at or below the lowest value to the one at or above the highest.
    const first = Math.floor(lo / step + 1e-9) * step, last = Math.ceil(hi / step - 1e-9) * step;
    const ticks = [];
    for (let i = 0; first + i * step <= last + step * 1e-9; i++) ticks.push(Number((first + i * step).toPrecision(12)));
    return { lo: first, hi: last, ticks };
  }

  // ---- charts ----

  // One chart: a title, a legend whose entries toggle their series, an SVG with axes and one
  // path per series, and a crosshair with the values at the nearest x under the pointer.
  function drawChart(title, cols, series, hidden) {
    const W = 560, H = 230, L = 58, R = 14, T = 12, B = 30;
    const xs = cols.step || cols.epoch || (series[0] ? cols[series[0][0]].map((_, i) => i) : []);
    const xLabel = cols.step ? "step" : cols.epoch ? "epoch" : "record";
    const box = ui.el("figure", { class: "chart", dataset: { chart: title } });
    const legend = ui.el("div", { class: "legend" });
    box.append(ui.el("figcaption", {}, ui.el("span", { class: "chart-title", text: title }), legend));
    const plot = ui.el("div", { class: "plot" });
    box.append(plot);
    const tip = ui.el("div", { class: "tip" });
    tip.hidden = true;

    function render() {
      const shown = series.filter(([key]) => !hidden.has(title + "/" + key));
      let xlo = Infinity, xhi = -Infinity, ylo = Infinity, yhi = -Infinity;
      for (const x of xs) if (x !== null) { xlo = Math.min(xlo, x); xhi = Math.max(xhi, x); }
      for (const [key] of shown)
        for (const v of cols[key]) if (v !== null && Number.isFinite(v)) { ylo = Math.min(ylo, v); yhi = Math.max(yhi, v); }
      const svg = ui.svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart-svg", role: "img", "aria-label": title });
      plot.replaceChildren(svg, tip);
      if (!Number.isFinite(ylo) || !Number.isFinite(xlo)) {
        svg.append(ui.svg("text", { x: W / 2, y: H / 2, class: "nodata", "text-anchor": "middle" }, document.createTextNode(shown.length ? "no values yet" : "all series hidden")));
        return;
      }
      const X = niceTicks(xlo, xhi, 6), Y = niceTicks(ylo, yhi, 5);
      const px = (x) => L + (x - X.lo) / (X.hi - X.lo) * (W - L - R);
      const py = (y) => H - B - (y - Y.lo) / (Y.hi - Y.lo) * (H - T - B);
      const axes = ui.svg("g", { class: "axes" });
      for (const t of Y.ticks) {
        axes.append(ui.svg("line", { x1: L, x2: W - R, y1: py(t), y2: py(t), class: "grid" }));
        axes.append(ui.svg("text", { x: L - 6, y: py(t) + 4, "text-anchor": "end" }, document.createTextNode(fmtNum(t))));
      }
      for (const t of X.ticks) {
        axes.append(ui.svg("line", { x1: px(t), x2: px(t), y1: H - B, y2: H - B + 4, class: "tick" }));
        axes.append(ui.svg("text", { x: px(t), y: H - B + 16, "text-anchor": "middle" }, document.createTextNode(fmtNum(t))));
      }
      axes.append(ui.svg("line", { x1: L, x2: W - R, y1: H - B, y2: H - B, class: "axis" }));
      axes.append(ui.svg("text", { x: W - R, y: H - 2, "text-anchor": "end", class: "xlabel" }, document.createTextNode(xLabel)));
      svg.append(axes);
      for (const [key, , color] of shown) {
        let d = "", pen = "M";
        const dots = [];
        cols[key].forEach((v, i) => {
          if (v === null || !Number.isFinite(v) || xs[i] === null) { pen = "M"; return; }
          d += `${pen}${px(xs[i]).toFixed(1)},${py(v).toFixed(1)}`;
          pen = "L";
          dots.push([px(xs[i]), py(v)]);
        });
        svg.append(ui.svg("path", { d, class: "series", stroke: color, "data-key": key }));
        if (dots.length <= 40)
          for (const [x, y] of dots) svg.append(ui.svg("circle", { cx: x.toFixed(1), cy: y.toFixed(1), r: 2.5, fill: color, class: "dot" }));
      }
      // The crosshair: a line and a marker per series at the nearest x; values in the tooltip.
      const cross = ui.svg("line", { y1: T, y2: H - B, class: "crosshair", visibility: "hidden" });
      const markers = shown.map(([, , color]) => ui.svg("circle", { r: 4, fill: color, class: "marker", visibility: "hidden" }));
      const hit = ui.svg("rect", { x: L, y: T, width: W - L - R, height: H - T - B, class: "hit" });
      svg.append(cross, ...markers, hit);
      hit.addEventListener("mousemove", (e) => {
        const r = svg.getBoundingClientRect();
        const sx = (e.clientX - r.left) * W / r.width;
        const x = X.lo + (sx - L) / (W - L - R) * (X.hi - X.lo);
        let best = -1;
        xs.forEach((v, i) => {
          if (v === null) return;
          if (!shown.some(([k]) => cols[k][i] !== null)) return;
          if (best < 0 || Math.abs(v - x) < Math.abs(xs[best] - x)) best = i;
        });
        if (best < 0) return;
        cross.setAttribute("x1", px(xs[best]));
        cross.setAttribute("x2", px(xs[best]));
        cross.setAttribute("visibility", "visible");
        const lines = [ui.el("div", { class: "tip-x", text: xLabel + " " + fmtNum(xs[best]) })];
        shown.forEach(([key, label, color], j) => {
          const v = cols[key][best];
          const m = markers[j];
          if (v === null || !Number.isFinite(v)) { m.setAttribute("visibility", "hidden"); return; }
          m.setAttribute("cx", px(xs[best]));
          m.setAttribute("cy", py(v));
          m.setAttribute("visibility", "visible");
          const sw = ui.el("span", { class: "swatch" });
          sw.style.background = color;
          lines.push(ui.el("div", { class: "tip-row", dataset: { key } }, sw, label + ": ", ui.el("b", { text: fmtNum(v) })));
        });
        tip.replaceChildren(...lines);
        tip.hidden = false;
        const left = px(xs[best]) / W * r.width;
        tip.style.left = (left > r.width * 0.6 ? left - tip.offsetWidth - 12 : left + 12) + "px";
        tip.style.top = "8px";
      });
      hit.addEventListener("mouseleave", () => {
        tip.hidden = true;
        cross.setAttribute("visibility", "hidden");
        for (const m of markers) m.setAttribute("visibility", "hidden");
      });
    }

    for (const [key, label, color] of series) {
      const sw = ui.el("span", { class: "swatch" });
      sw.style.background = color;
      const b = ui.el("button", { type: "button", class: "legend-item", dataset: { key }, title: "Show or hide " + label }, sw, label);
      const sync = () => {
        const off = hidden.has(title + "/" + key);
        b.classList.toggle("off", off);
        b.setAttribute("aria-pressed", String(!off));
      };
      b.addEventListener("click", () => {
        const id = title + "/" + key;
        if (hidden.has(id)) hidden.delete(id); else hidden.add(id);
        sync();
        render();
      });
      sync();
      legend.append(b);
    }
    render();
    return box;
  }

  // The charts for a /metrics document: the known ones, then one per other kind.
  function drawCharts(kinds, hidden) {
    const out = [];
    const used = new Set();
    let c = 0;
    for (const [title, kind, keys] of CHARTS) {
      const cols = kinds[kind];
      if (!cols) continue;
      const series = keys.filter(([k]) => cols[k]).map(([k, label]) => [k, label, COLORS[c++ % COLORS.length]]);
      keys.forEach(([k]) => used.add(kind + "/" + k));
      if (series.length) out.push(drawChart(title, cols, series, hidden));
    }
    for (const [kind, cols] of Object.entries(kinds)) {
      const series = Object.keys(cols).filter((k) => !X_KEYS.has(k) && !used.has(kind + "/" + k))
        .map((k) => [k, k, COLORS[c++ % COLORS.length]]);
      if (series.length) out.push(drawChart(kind === "train" ? "Other training values" : kind === "val" ? "Other validation values" : kind, cols, series, hidden));
    }
    return out;
  }

  // ---- the other sections ----

  const kv = (rows) => ui.el("dl", { class: "kv" }, rows.filter(Boolean).flatMap(([k, v]) => [ui.el("dt", { text: k }), ui.el("dd", {}, v)]));
  const code = (text) => ui.el("code", { text });

  function summary(job) {
    const gpus = ui.gpus(job.gpusAllocated) + " allocated of " + ui.gpus(job.gpusRequested) + " requested";
    return kv([
      ["Status", ui.el("span", {}, ui.statusBadge(job.status, job.statusReason), job.statusReason ? ui.el("span", { class: "reason", text: " " + job.statusReason }) : null)],
      ["Project", job.project], ["Type", job.type], ["Image", code(job.image || "–")], ["User", job.user || "–"],
      ["Created", fmtTime(job.createdAt)], ["Started", fmtTime(job.startedAt)], ["Finished", fmtTime(job.finishedAt)],
      ["Run time", job.startedAt ? duration(job.startedAt, job.finishedAt) : "–"],
      ["Exit code", job.exitCode === null || job.exitCode === undefined ? "–" : String(job.exitCode)],
      ["GPUs", gpus], ["Pods", (job.podsRunning || 0) + " running, " + (job.podsPending || 0) + " pending"],
      ["Nodes", (job.nodes || []).join(", ") || "–"],
    ]);
  }

  function table(cls, head, rows, empty) {
    const body = rows.length ? rows : [ui.el("tr", {}, ui.el("td", { class: "empty", colspan: head.length, text: empty }))];
    return ui.el("table", { class: "grid-table " + cls }, ui.el("thead", {}, ui.el("tr", {}, head.map((h) => ui.el("th", { text: h })))), ui.el("tbody", {}, body));
  }

  function podsTable(job) {
    const rows = (job.pods || []).map((p) => ui.el("tr", { dataset: { pod: p.name } },
      ui.el("td", {}, code(p.name)), ui.el("td", { text: p.role || "–" }), ui.el("td", {}, ui.statusBadge(p.status)),
      ui.el("td", { text: p.node || "–" }),
      ui.el("td", { text: (p.gpuIndices || []).length ? (p.gpuIndices.join(", ") + (p.gpuShare && p.gpuShare < 1 ? " (" + Math.round(p.gpuShare * 100) + "% each)" : "")) : "–" }),
      ui.el("td", { text: p.ip || "–" }), ui.el("td", { text: fmtTime(p.startedAt) })));
    return table("pods", ["Pod", "Role", "Status", "Node", "GPUs", "IP", "Started"], rows, "No pods.");
  }

  function eventsTable(job) {
    const rows = (job.events || []).map((e) => ui.el("tr", { class: e.type === "Warning" ? "warning" : "" },
      ui.el("td", { class: "nowrap", text: fmtTime(e.time) }), ui.el("td", { text: e.type }), ui.el("td", { text: e.reason }),
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
        ["Command", words.length ? ui.el("pre", { class: "cmd", text: words.join(" ") }) : "the image's entrypoint"],
        ["Environment", list((s.env || []).map((e) => code(e.name + "=" + e.value)))],
        ["GPU", ui.gpus(s.gpu) + (s.type === "Mpi" ? " × " + s.processes + " processes" : "")],
        ["CPU / memory", (s.cpu || "–") + " / " + (s.memory || "–")],
        ["Volumes", list([
          ...(s.pvcs || []).map((p) => code((p.claim || "(new " + p.size + ")") + " → " + p.mountPath + (p.readOnly ? " (ro)" : ""))),
          ...(s.volumes || []).map((v) => code(v.hostPath + " → " + v.containerPath + (v.readOnly ? " (ro)" : ""))),
        ])],
        s.workingDir ? ["Working dir", code(s.workingDir)] : null,
        (s.cliArgv || []).length ? ["Command line", ui.el("pre", { class: "cmd", text: s.cliArgv.join(" ") })] : null,
      ]),
      ui.el("details", { class: "raw" }, ui.el("summary", { text: "Full spec (JSON)" }), ui.el("pre", { text: JSON.stringify(s, null, 2) })));
  }

  // ---- the page ----

  function mount(root, params) {
    const base = api(params);
    let alive = true, job = null;
    const timers = new Set();
    const hidden = new Set();  // chart series the user switched off: "Chart/key"
    const last = {};           // the last document drawn per section, to redraw only on change

    const section = (id, title, ...extra) => {
      const body = ui.el("div", { class: "panel-body", id: id + "-body" }, ui.el("p", { class: "muted", text: "Loading…" }));
      const s = ui.el("section", { class: "panel", id }, ui.el("header", {}, ui.el("h3", { text: title }), ...extra), body);
      return s;
    };
    const logTail = ui.el("select", { id: "log-tail", "aria-label": "Log lines" }, [200, 1000, 5000].map((n) => new Option("last " + n + " lines", n)));
    const logState = ui.el("span", { class: "muted small", id: "log-state" });
    const metricsNote = ui.el("span", { class: "muted small", id: "metrics-note" });
    const head = ui.el("div", { class: "job-head" },
      ui.el("a", { href: "#/jobs", class: "back", text: "← Jobs" }),
      ui.el("h2", { id: "job-title", text: params.name }), ui.el("span", { id: "job-badge" }),
      ui.el("span", { class: "muted", text: "project " + params.project }));
    const summaryPanel = section("summary", "Status");
    const chartsPanel = section("metrics", "Training curves", metricsNote);
    const logPanel = section("log", "Log", logState, logTail);
    const podsPanel = section("pods", "Pods");
    const eventsPanel = section("events", "Events");
    const specPanel = section("spec", "Spec");
    const overlaysPanel = section("overlays", "Prediction overlays");
    root.append(head, ui.el("div", { class: "job-grid" }, summaryPanel, specPanel, chartsPanel, logPanel, podsPanel, eventsPanel, overlaysPanel));
    const logPre = ui.el("pre", { class: "log", id: "log-text", tabindex: "0" });
    logPanel.querySelector(".panel-body").replaceChildren(logPre);

    const body = (panel) => panel.querySelector(".panel-body");
    const running = () => !job || !FINISHED.has(job.status);
    // Runs `fn` now and again after `ms` (longer once the job has finished) until the page is left.
    function every(ms, fn) {
      const tick = async () => {
        if (!alive) return;
        try { await fn(); } catch (e) { /* shown by fn where it matters */ }
        if (!alive) return;
        const t = setTimeout(() => { timers.delete(t); tick(); }, running() ? ms : Math.max(ms, POLL_IDLE_MS));
        timers.add(t);
      };
      tick();
    }

    async function loadJob() {
      let doc;
      try { doc = await ui.fetchJSON(base); } catch (e) {
        if (!alive) return;
        if (!job) {  // never loaded (no such job): say so once and poll nothing
          leave();
          root.querySelector(".job-grid").replaceChildren(ui.errorBox(e.message));
          return;
        }
        body(summaryPanel).replaceChildren(ui.errorBox(e.message));
        return;
      }
      if (!alive) return;
      job = doc;
      body(summaryPanel).replaceChildren(summary(doc));  // the run time moves on
      const key = JSON.stringify(doc);
      if (key === last.job) return;
      last.job = key;
      root.querySelector("#job-badge").replaceChildren(ui.statusBadge(doc.status, doc.statusReason));
      body(podsPanel).replaceChildren(podsTable(doc));
      body(eventsPanel).replaceChildren(eventsTable(doc));
      body(specPanel).replaceChildren(specView(doc));
    }

    let logFinal = false;
    async function loadLog() {
      if (logFinal) return;  // a finished job's log does not change
      if (job && (job.status === "Pending" || job.status === "Suspended") && !logPre.textContent) {
        logState.textContent = "no log until the job runs";
        logState.className = "small muted";
        return;
      }
      const wasDone = job && FINISHED.has(job.status);
      let text;
      try { text = await ui.fetchText(base + "/logs?tail=" + logTail.value); } catch (e) {
        if (!alive) return;
        logState.textContent = e.message;
        return;
      }
      if (!alive) return;
      // Follow the end unless the reader scrolled up.
      const atBottom = logPre.scrollHeight - logPre.scrollTop - logPre.clientHeight < 24;
      if (text !== logPre.textContent) {
        logPre.textContent = text || "";
        if (atBottom) logPre.scrollTop = logPre.scrollHeight;
      }
      logPre.classList.toggle("empty", !text);
      logFinal = wasDone;
      logState.textContent = wasDone ? "job finished" : atBottom ? "following" : "paused (scrolled up)";
      logState.className = "small " + (wasDone ? "muted" : atBottom ? "following" : "muted");
    }
    logTail.addEventListener("change", () => { logFinal = false; logPre.textContent = ""; loadLog(); });
    logPre.addEventListener("scroll", () => {
      if (logFinal) return;
      const atBottom = logPre.scrollHeight - logPre.scrollTop - logPre.clientHeight < 24;
      logState.textContent = atBottom ? "following" : "paused (scrolled up)";
      logState.className = "small " + (atBottom ? "following" : "muted");
    });

    let metricsFinal = false;
    async function loadMetrics() {
      if (metricsFinal) return;
      const wasDone = job && FINISHED.has(job.status);
      const doc = await ui.fetchJSON(base + "/metrics").catch((e) => ({ available: false, reason: e.message }));
      if (!alive) return;
      const key = JSON.stringify(doc);
      if (key === last.metrics) { metricsFinal = wasDone; return; }
      last.metrics = key;
      if (!doc.available) {
        metricsNote.textContent = doc.path || "";
        body(chartsPanel).replaceChildren(ui.el("p", { class: "muted", id: "metrics-reason", text: "No training curves: " + doc.reason + "." }));
        metricsFinal = wasDone;
        return;
      }
      const charts = drawCharts(doc.kinds || {}, hidden);
      const records = Object.values(doc.kinds || {}).reduce((n, cols) => n + ((Object.values(cols)[0] || []).length), 0);
      metricsNote.textContent = doc.path + " · " + records + " records" + (doc.truncated ? " (the newest part of a large file)" : "") +
        " · written " + ui.formatAge(Date.now() - doc.modified) + " ago";
      // A file older than the job is not its output: an earlier run's, on a volume this job mounts
      // at its OUTPUT_DIR (e.g. an evaluation job of the trainer's image, on the restored volume).
      const started = Date.parse((job && job.startedAt) || "");
      const stale = !Number.isNaN(started) && doc.modified < started - 1000 ?
        ui.el("p", { class: "stale-note", id: "metrics-stale",
                     text: "Written before this job started: these are the curves of an earlier run that wrote " + doc.path +
                           " on a volume this job mounts, not this job's own." }) : null;
      body(chartsPanel).replaceChildren(...[stale, charts.length ? ui.el("div", { class: "charts" }, charts) :
        ui.el("p", { class: "muted", text: "metrics.jsonl has no numeric values yet." })].filter(Boolean));
      metricsFinal = wasDone;
    }

    let overlaysFinal = false;
    async function loadOverlays() {
      if (overlaysFinal) return;
      const wasDone = job && FINISHED.has(job.status);
      const doc = await ui.fetchJSON(base + "/overlays").catch((e) => ({ available: false, images: [], tried: [{ dir: "", reason: e.message }] }));
      if (!alive) return;
      const key = JSON.stringify(doc);
      overlaysFinal = wasDone;
      if (key === last.overlays) return;
      last.overlays = key;
      if (!doc.available) {
        const why = (doc.tried || []).map((t) => ui.el("li", { text: t.reason }));
        body(overlaysPanel).replaceChildren(ui.el("p", { class: "muted", text: "No prediction overlays. A predict run (scnn-train predict --out DIR) writes them to DIR/overlays; training writes none. Looked at:" }),
          ui.el("ul", { class: "plain muted small" }, why));
        return;
      }
      const figs = doc.images.map((img) => {
        const src = base + "/overlays/" + encodeURIComponent(img.name);
        return ui.el("figure", { class: "overlay" },
          ui.el("a", { href: src, target: "_blank", rel: "noopener" }, ui.el("img", { src, alt: img.name })),
          ui.el("figcaption", { text: img.name }));
      });
      body(overlaysPanel).replaceChildren(
        ui.el("p", { class: "muted small", text: doc.dir + " · the newest " + doc.images.length + (doc.truncated ? " (more on the volume)" : "") }),
        ui.el("div", { class: "overlays" }, figs));
    }

    // The list stream says when the status changes: fetch the job at once rather than at the next poll.
    const unsubscribe = ui.jobsFeed.subscribe((jobs) => {
      const j = jobs.find((x) => x.project === params.project && x.name === params.name);
      if (j && job && j.status !== job.status) loadJob();
    });
    (async () => {
      await loadJob();
      every(POLL_JOB_MS, loadJob);
      every(POLL_LOG_MS, loadLog);
      every(POLL_METRICS_MS, loadMetrics);
      every(POLL_OVERLAYS_MS, loadOverlays);
    })();
    function leave() {
      alive = false;
      unsubscribe();
      for (const t of timers) clearTimeout(t);
    }
    return leave;
  }

  pages.job = { title: (p) => p.name + " (" + p.project + ")", mount };
})();
