// The Jobs page: the Run:AI columns, filters by project/status/text, sortable columns (header
// buttons, aria-sort), kept live by the shared jobs stream; a job's name links to its page. The
// filters and the sort are kept in the URL ("#/jobs?project=p&status=Running&q=text&sort=name&dir=desc"),
// so Back and a bookmark restore them. On a narrow screen each row is a card (job.css).
//
// Virtualised: filtering and sorting run over every job, but only the rows in (and just around)
// the viewport are in the DOM; two spacer rows keep the table as tall as all its rows, so the
// page's scroll bar covers every job. Rows have one height (measured on the first row drawn).
// Performance marks: "jobs:first-rows" when the first rows are in the DOM, "jobs:first-screen"
// in the first task after the frame that paints them (requestAnimationFrame, then a task);
// bench/dashboard_jobs.py reads them.
import { compareBar, selectBox } from "./compare.js";
import { pages, ui } from "./ui.js";

// [key, header, class, the label of the value on a card]
const COLUMNS = [
  ["name", "NAME", "name", ""], ["status", "STATUS", "", ""], ["age", "AGE", "", "age"], ["node", "NODE", "node", "node"],
  ["image", "IMAGE", "image", "image"], ["type", "TYPE", "", "type"], ["project", "PROJECT", "", "project"],
  ["user", "USER", "", "user"], ["gpus", "GPUs Allocated (Requested)", "num", "GPUs"],
  ["pods", "PODs Running (Pending)", "num", "pods"],
];
const OVERSCAN = 10;           // rows drawn beyond each edge of the viewport
const DEFAULT_ROW_HEIGHT = 37;  // until the first row is measured

const state = {
  jobs: [], shown: [], sortKey: "age", sortDir: 1, now: Date.now(),
  rowHeight: 0, drawn: null, marked: false,
};

const created = (j) => { const t = Date.parse(j.createdAt || ""); return Number.isNaN(t) ? 0 : t; };

// The value each column sorts by (computed once per job per sort).
const sortValue = {
  name: (j) => j.name, status: (j) => j.status, age: (j) => -created(j),
  node: (j) => (j.nodes || []).join(","), image: (j) => j.image || "", type: (j) => j.type,
  project: (j) => j.project, user: (j) => j.user || "",
  gpus: (j) => Number(j.gpusAllocated || 0) * 1e6 + Number(j.gpusRequested || 0),
  pods: (j) => Number(j.podsRunning || 0) * 1e6 + Number(j.podsPending || 0),
};

const cell = (text, cls) => ui.el("td", { class: cls, text });

function row(job) {
  const tr = ui.el("tr", { dataset: { job: job.project + "/" + job.name } });
  // The box and the link share one flex line, so a long name ends in "…" after the box.
  tr.append(ui.el("td", { class: "name" }, ui.el("div", { class: "name-line" }, selectBox(job),
    ui.el("a", { href: ui.jobHref(job.project, job.name), text: job.name, title: job.name }))));
  tr.append(ui.el("td", {}, ui.statusBadge(job.status, job.statusReason)));
  tr.append(cell(ui.formatAge(ui.since(job.createdAt, state.now))));
  // Kubernetes node names are long and an MPI job has several: the first, "+N" more, all in the title.
  const nodes = job.nodes || [];
  tr.append(nodes.length
    ? ui.el("td", { class: "node", title: nodes.join(", ") }, ui.el("span", { class: "node-name", text: nodes[0] }),
      nodes.length > 1 ? ui.el("span", { class: "more", text: " +" + (nodes.length - 1) }) : null)
    : cell("-", "none"));
  const image = cell(job.image || "-", "image");
  if (job.image) image.title = job.image;
  tr.append(image);
  tr.append(cell(job.type));
  tr.append(cell(job.project));
  tr.append(cell(job.user || "-"));
  const idle = (a, b) => (Number(a || 0) === 0 && Number(b || 0) === 0 ? " none" : "");
  tr.append(cell(ui.gpus(job.gpusAllocated) + " (" + ui.gpus(job.gpusRequested) + ")",
    "num" + idle(job.gpusAllocated, job.gpusRequested)));
  tr.append(cell((job.podsRunning || 0) + " (" + (job.podsPending || 0) + ")",
    "num" + idle(job.podsRunning, job.podsPending)));
  COLUMNS.forEach((c, i) => { if (c[3]) tr.children[i].dataset.label = c[3]; });
  return tr;
}

function spacer(rows) {
  const td = ui.el("td", { colspan: COLUMNS.length });
  td.style.height = rows * (state.rowHeight || DEFAULT_ROW_HEIGHT) + "px";
  return ui.el("tr", { class: "spacer", "aria-hidden": "true" }, td);
}

// The select's options; keeps its value, or the one the URL asked for (dataset.want) once known.
function fillSelect(select, values) {
  const keep = select.value || select.dataset.want || "";
  const first = select.options[0];
  select.replaceChildren(first, ...values.map((v) => new Option(v, v)));
  select.value = values.includes(keep) ? keep : "";
  if (select.value) delete select.dataset.want;
}

// The filters and the sort as the page's URL: a new history entry (push) or the current one replaced.
function saveUrl(root, push) {
  const q = new URLSearchParams();
  const project = root.querySelector("#filter-project"), status = root.querySelector("#filter-status");
  const text = root.querySelector("#filter-text").value.trim();
  if (project.value || project.dataset.want) q.set("project", project.value || project.dataset.want);
  if (status.value || status.dataset.want) q.set("status", status.value || status.dataset.want);
  if (text) q.set("q", text);
  if (state.sortKey !== "age" || state.sortDir !== 1) { q.set("sort", state.sortKey); q.set("dir", state.sortDir > 0 ? "asc" : "desc"); }
  const hash = "#/jobs" + (q.toString() ? "?" + q : "");
  if (hash !== location.hash) history[push ? "pushState" : "replaceState"](null, "", hash);
}

// The URL's filters and sort into the page (mount).
function loadUrl(root, query) {
  root.querySelector("#filter-project").dataset.want = query.get("project") || "";
  root.querySelector("#filter-status").dataset.want = query.get("status") || "";
  root.querySelector("#filter-text").value = query.get("q") || "";
  state.sortKey = sortValue[query.get("sort")] ? query.get("sort") : "age";
  state.sortDir = query.get("dir") === "desc" ? -1 : 1;
}

// Filters and sorts every job into state.shown, then draws the visible rows.
function recompute(root) {
  state.now = Date.now();
  const project = root.querySelector("#filter-project");
  const status = root.querySelector("#filter-status");
  fillSelect(project, [...new Set(state.jobs.map((j) => j.project))].sort());
  fillSelect(status, [...new Set(state.jobs.map((j) => j.status))].sort());
  const text = root.querySelector("#filter-text").value.trim().toLowerCase();
  const key = sortValue[state.sortKey];
  const dir = state.sortDir;
  const keyed = [];
  const perStatus = new Map();  // the summary's counts: every status, within the other filters
  for (const j of state.jobs) {
    if (project.value && j.project !== project.value) continue;
    if (text && ![j.name, j.image, j.user, j.project].some((v) => (v || "").toLowerCase().includes(text))) continue;
    perStatus.set(j.status, (perStatus.get(j.status) || 0) + 1);
    if (status.value && j.status !== status.value) continue;
    keyed.push([key(j), j.name, j.project, j]);
  }
  summary(root, perStatus, status.value);
  keyed.sort((a, b) => (a[0] < b[0] ? -dir : a[0] > b[0] ? dir : 0) ||
    (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) || (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0));
  state.shown = keyed.map((k) => k[3]);
  root.querySelector("#count").textContent = state.shown.length + " of " + state.jobs.length + " jobs";
  for (const th of root.querySelectorAll("#jobs th")) {
    const on = th.dataset.key === state.sortKey;
    th.classList.toggle("sorted-asc", on && state.sortDir > 0);
    th.classList.toggle("sorted-desc", on && state.sortDir < 0);
    th.setAttribute("aria-sort", on ? (state.sortDir > 0 ? "ascending" : "descending") : "none");
  }
  draw(root, true);
}

// One chip per status with its count; a click filters by that status (again: all statuses).
function summary(root, perStatus, selected) {
  const order = ["Running", "Pending", "Suspended", "Succeeded", "Failed", "Error"];
  const statuses = [...perStatus.keys()].sort((a, b) =>
    ((order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99)) || (a < b ? -1 : 1));
  const select = root.querySelector("#filter-status");
  root.querySelector("#summary").replaceChildren(...statuses.map((st) =>
    ui.el("button", {
      type: "button", class: "chip " + st + (st === selected ? " active" : ""), dataset: { status: st },
      "aria-pressed": st === selected ? "true" : "false", title: "Show only " + st + " jobs",
      onclick: () => {
        select.value = select.value === st ? "" : st;
        delete select.dataset.want;
        recompute(root);
        saveUrl(root, true);
      },
    }, st, ui.el("b", { text: String(perStatus.get(st)) }))));
}

// Draws the rows that meet the viewport (plus OVERSCAN each side); `force` after a data change.
function draw(root, force) {
  const body = root.querySelector("#jobs-body");
  const n = state.shown.length;
  if (n === 0) {
    const td = cell(state.jobs.length ? "No job matches the filters." : "No jobs yet: lanectl submit …", "empty");
    td.colSpan = COLUMNS.length;
    body.replaceChildren(ui.el("tr", {}, td));
    state.drawn = null;
    return;
  }
  const h = state.rowHeight || DEFAULT_ROW_HEIGHT;
  const top = body.getBoundingClientRect().top;  // viewport coordinates; negative once scrolled past
  const first = Math.min(n, Math.max(0, Math.floor(-top / h) - OVERSCAN));
  const last = Math.min(n, Math.max(first, Math.ceil((window.innerHeight - top) / h) + OVERSCAN));
  if (!force && state.drawn && state.drawn[0] === first && state.drawn[1] === last) return;
  const rows = state.shown.slice(first, last).map(row);
  body.replaceChildren(spacer(first), ...rows, spacer(n - last));
  state.drawn = [first, last];
  if (!state.rowHeight && rows.length) {
    const span = rows[rows.length - 1].getBoundingClientRect().bottom - rows[0].getBoundingClientRect().top;
    state.rowHeight = span / rows.length || DEFAULT_ROW_HEIGHT;
    if (Math.abs(state.rowHeight - h) > 0.5) return draw(root, true);  // spacers and range in real rows
  }
  if (!state.marked && rows.length) {
    state.marked = true;
    performance.mark("jobs:first-rows");
    requestAnimationFrame(() => setTimeout(() => performance.mark("jobs:first-screen"), 0));
  }
}

function mount(root, params) {
  root.append(
    ui.el("section", { id: "summary", class: "summary", "aria-label": "Jobs by status" }),
    ui.el("section", { class: "toolbar" },
      ui.el("label", {}, "Project ", ui.el("select", { id: "filter-project" }, new Option("All projects", ""))),
      ui.el("label", {}, "Status ", ui.el("select", { id: "filter-status" }, new Option("All statuses", ""))),
      ui.el("input", { id: "filter-text", type: "search", placeholder: "Filter by name, image, user…", "aria-label": "Filter" }),
      ui.el("span", { id: "count", class: "count" }), compareBar()),
    ui.el("table", { id: "jobs", class: "jobs" },
      ui.el("thead", {}, ui.el("tr", {}, COLUMNS.map(([key, label, cls]) =>
        ui.el("th", { "data-key": key, class: cls, scope: "col", "aria-sort": "none", onclick: () => {
          state.sortDir = state.sortKey === key ? -state.sortDir : 1;
          state.sortKey = key;
          recompute(root);
          saveUrl(root, true);
        } }, ui.el("button", { type: "button", class: "sort", text: label, title: "Sort by " + label }))))),
      ui.el("tbody", { id: "jobs-body" },
        ui.el("tr", {}, ui.el("td", { colspan: COLUMNS.length, class: "empty", text: "Loading…" })))));
  loadUrl(root, params.query);
  for (const id of ["filter-project", "filter-status"])
    root.querySelector("#" + id).addEventListener("input", (e) => { delete e.target.dataset.want; recompute(root); saveUrl(root, true); });
  root.querySelector("#filter-text").addEventListener("input", () => { recompute(root); saveUrl(root, false); });
  let pending = false;
  const onScroll = () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => { pending = false; draw(root, false); });
  };
  const onResize = () => { state.rowHeight = 0; state.drawn = null; onScroll(); };  // a row becomes a card or a row again
  window.addEventListener("scroll", onScroll, { passive: true });
  window.addEventListener("resize", onResize);
  const unsubscribe = ui.jobsFeed.subscribe((jobs) => { state.jobs = jobs; recompute(root); });
  const timer = setInterval(() => { state.now = Date.now(); draw(root, true); }, 30000);  // ages move on
  return () => {
    unsubscribe();
    clearInterval(timer);
    window.removeEventListener("scroll", onScroll);
    window.removeEventListener("resize", onResize);
    state.drawn = null;
  };
}

pages.jobs = { title: "Jobs", mount };
