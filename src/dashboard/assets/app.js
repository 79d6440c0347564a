// The Jobs page: the Run:AI columns, filters by project/status/text, sortable columns, kept
// live by the server's event stream (/api/events), falling back to one fetch of /api/jobs.
"use strict";

const state = { jobs: [], sortKey: "age", sortDir: 1, now: Date.now() };

function age(job) {
  const t = Date.parse(job.createdAt || "");
  return Number.isNaN(t) ? 0 : Math.max(0, state.now - t);
}

function formatAge(ms) {
  const s = Math.floor(ms / 1000);
  if (s < 60) return s + "s";
  const m = Math.floor(s / 60);
  if (m < 60) return m + "m";
  const h = Math.floor(m / 60);
  if (h < 48) return h + "h" + (m % 60 ? (m % 60) + "m" : "");
  return Math.floor(h / 24) + "d";
}

function gpus(v) {
  const n = Number(v || 0);
  return Number.isInteger(n) ? String(n) : n.toFixed(2).replace(/0+$/, "");
}

// The value each column sorts by.
const sortValue = {
  name: (j) => j.name, status: (j) => j.status, age: (j) => age(j),
  node: (j) => (j.nodes || []).join(","), image: (j) => j.image || "", type: (j) => j.type,
  project: (j) => j.project, user: (j) => j.user || "",
  gpus: (j) => Number(j.gpusAllocated || 0) * 1e6 + Number(j.gpusRequested || 0),
  pods: (j) => Number(j.podsRunning || 0) * 1e6 + Number(j.podsPending || 0),
};

function cell(text, cls) {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  return td;
}

function row(job) {
  const tr = document.createElement("tr");
  tr.dataset.job = job.project + "/" + job.name;
  tr.append(cell(job.name));
  const st = document.createElement("td");
  const badge = document.createElement("span");
  badge.className = "status " + job.status;
  badge.textContent = job.status;
  if (job.statusReason) badge.title = job.statusReason;
  st.append(badge);
  tr.append(st);
  tr.append(cell(formatAge(age(job))));
  tr.append(cell((job.nodes || []).join(", ") || "-"));
  tr.append(cell(job.image || "-", "image"));
  tr.append(cell(job.type));
  tr.append(cell(job.project));
  tr.append(cell(job.user || "-"));
  tr.append(cell(gpus(job.gpusAllocated) + " (" + gpus(job.gpusRequested) + ")", "num"));
  tr.append(cell((job.podsRunning || 0) + " (" + (job.podsPending || 0) + ")", "num"));
  return tr;
}

function fillSelect(select, values) {
  const keep = select.value;
  const first = select.options[0];
  select.replaceChildren(first, ...values.map((v) => new Option(v, v)));
  select.value = values.includes(keep) ? keep : "";
}

function render() {
  state.now = Date.now();
  const project = document.getElementById("filter-project");
  const status = document.getElementById("filter-status");
  fillSelect(project, [...new Set(state.jobs.map((j) => j.project))].sort());
  fillSelect(status, [...new Set(state.jobs.map((j) => j.status))].sort());
  const text = document.getElementById("filter-text").value.trim().toLowerCase();
  const shown = state.jobs.filter((j) =>
    (!project.value || j.project === project.value) && (!status.value || j.status === status.value) &&
    (!text || [j.name, j.image, j.user, j.project].some((v) => (v || "").toLowerCase().includes(text))));
  const key = sortValue[state.sortKey];
  shown.sort((a, b) => {
    const x = key(a), y = key(b);
    return (x < y ? -1 : x > y ? 1 : 0) * state.sortDir || a.name.localeCompare(b.name);
  });
  const body = document.getElementById("jobs-body");
  if (shown.length === 0) {
    const tr = document.createElement("tr");
    const td = cell(state.jobs.length ? "No job matches the filters." : "No jobs yet: lanectl submit …", "empty");
    td.colSpan = 10;
    tr.append(td);
    body.replaceChildren(tr);
  } else {
    body.replaceChildren(...shown.map(row));
  }
  document.getElementById("count").textContent = shown.length + " of " + state.jobs.length + " jobs";
  for (const th of document.querySelectorAll("#jobs th")) {
    th.classList.toggle("sorted-asc", th.dataset.key === state.sortKey && state.sortDir > 0);
    th.classList.toggle("sorted-desc", th.dataset.key === state.sortKey && state.sortDir < 0);
  }
}

function setLive(on, text) {
  const el = document.getElementById("live");
  el.className = "live " + (on ? "on" : "off");
  el.textContent = text;
}

function connect() {
  const events = new EventSource("/api/events");
  events.addEventListener("jobs", (e) => {
    state.jobs = JSON.parse(e.data);
    setLive(true, "live");
    render();
  });
  events.onerror = () => setLive(false, "reconnecting…");
}

document.addEventListener("DOMContentLoaded", () => {
  for (const th of document.querySelectorAll("#jobs th")) {
    th.addEventListener("click", () => {
      state.sortDir = state.sortKey === th.dataset.key ? -state.sortDir : 1;
      state.sortKey = th.dataset.key;
      render();
    });
  }
  for (const id of ["filter-project", "filter-status", "filter-text"])
    document.getElementById(id).addEventListener("input", render);
  fetch("/api/jobs").then((r) => r.json()).then((jobs) => { state.jobs = jobs; render(); }).catch(() => {});
  connect();
  setInterval(render, 30000);  // ages move on between updates
});
