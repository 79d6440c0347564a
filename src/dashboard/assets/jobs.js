// The Jobs page: the Run:AI columns, filters by project/status/text, sortable columns, kept live
// by the shared jobs stream; a job's name links to its page.
"use strict";

(() => {
  const COLUMNS = [
    ["name", "NAME"], ["status", "STATUS"], ["age", "AGE"], ["node", "NODE"], ["image", "IMAGE"],
    ["type", "TYPE"], ["project", "PROJECT"], ["user", "USER"],
    ["gpus", "GPUs Allocated (Requested)", "num"], ["pods", "PODs Running (Pending)", "num"],
  ];

  const state = { jobs: [], sortKey: "age", sortDir: 1, now: Date.now() };

  const age = (j) => ui.since(j.createdAt, state.now);

  // The value each column sorts by.
  const sortValue = {
    name: (j) => j.name, status: (j) => j.status, age: (j) => age(j),
    node: (j) => (j.nodes || []).join(","), image: (j) => j.image || "", type: (j) => j.type,
    project: (j) => j.project, user: (j) => j.user || "",
    gpus: (j) => Number(j.gpusAllocated || 0) * 1e6 + Number(j.gpusRequested || 0),
    pods: (j) => Number(j.podsRunning || 0) * 1e6 + Number(j.podsPending || 0),
  };

  const cell = (text, cls) => ui.el("td", { class: cls, text });

  function row(job) {
    const tr = ui.el("tr", { dataset: { job: job.project + "/" + job.name } });
    tr.append(ui.el("td", {}, ui.el("a", { href: ui.jobHref(job.project, job.name), text: job.name })));
    tr.append(ui.el("td", {}, ui.statusBadge(job.status, job.statusReason)));
    tr.append(cell(ui.formatAge(age(job))));
    tr.append(cell((job.nodes || []).join(", ") || "-"));
    tr.append(cell(job.image || "-", "image"));
    tr.append(cell(job.type));
    tr.append(cell(job.project));
    tr.append(cell(job.user || "-"));
    tr.append(cell(ui.gpus(job.gpusAllocated) + " (" + ui.gpus(job.gpusRequested) + ")", "num"));
    tr.append(cell((job.podsRunning || 0) + " (" + (job.podsPending || 0) + ")", "num"));
    return tr;
  }

  function fillSelect(select, values) {
    const keep = select.value;
    const first = select.options[0];
    select.replaceChildren(first, ...values.map((v) => new Option(v, v)));
    select.value = values.includes(keep) ? keep : "";
  }

  function render(root) {
    state.now = Date.now();
    const project = root.querySelector("#filter-project");
    const status = root.querySelector("#filter-status");
    fillSelect(project, [...new Set(state.jobs.map((j) => j.project))].sort());
    fillSelect(status, [...new Set(state.jobs.map((j) => j.status))].sort());
    const text = root.querySelector("#filter-text").value.trim().toLowerCase();
    const shown = state.jobs.filter((j) =>
      (!project.value || j.project === project.value) && (!status.value || j.status === status.value) &&
      (!text || [j.name, j.image, j.user, j.project].some((v) => (v || "").toLowerCase().includes(text))));
    const key = sortValue[state.sortKey];
    shown.sort((a, b) => {
      const x = key(a), y = key(b);
      return (x < y ? -1 : x > y ? 1 : 0) * state.sortDir || a.name.localeCompare(b.name);
    });
    const body = root.querySelector("#jobs-body");
    if (shown.length === 0) {
      const td = cell(state.jobs.length ? "No job matches the filters." : "No jobs yet: lanectl submit …", "empty");
      td.colSpan = COLUMNS.length;
      body.replaceChildren(ui.el("tr", {}, td));
    } else {
      body.replaceChildren(...shown.map(row));
    }
    root.querySelector("#count").textContent = shown.length + " of " + state.jobs.length + " jobs";
    for (const th of root.querySelectorAll("#jobs th")) {
      th.classList.toggle("sorted-asc", th.dataset.key === state.sortKey && state.sortDir > 0);
      th.classList.toggle("sorted-desc", th.dataset.key === state.sortKey && state.sortDir < 0);
    }
  }

  function mount(root) {
    root.append(
      ui.el("section", { class: "toolbar" },
        ui.el("label", {}, "Project ", ui.el("select", { id: "filter-project" }, new Option("All projects", ""))),
        ui.el("label", {}, "Status ", ui.el("select", { id: "filter-status" }, new Option("All statuses", ""))),
        ui.el("input", { id: "filter-text", type: "search", placeholder: "Filter by name, image, user…", "aria-label": "Filter" }),
        ui.el("span", { id: "count", class: "count" })),
      ui.el("table", { id: "jobs", class: "jobs" },
        ui.el("thead", {}, ui.el("tr", {}, COLUMNS.map(([key, label, cls]) =>
          ui.el("th", { "data-key": key, class: cls, text: label, onclick: () => {
            state.sortDir = state.sortKey === key ? -state.sortDir : 1;
            state.sortKey = key;
            render(root);
          } })))),
        ui.el("tbody", { id: "jobs-body" },
          ui.el("tr", {}, ui.el("td", { colspan: COLUMNS.length, class: "empty", text: "Loading…" })))));
    for (const id of ["filter-project", "filter-status", "filter-text"])
      root.querySelector("#" + id).addEventListener("input", () => render(root));
    const unsubscribe = ui.jobsFeed.subscribe((jobs) => { state.jobs = jobs; render(root); });
    const timer = setInterval(() => render(root), 30000);  // ages move on between updates
    return () => { unsubscribe(); clearInterval(timer); };
  }

  pages.jobs = { title: "Jobs", mount };
})();
