// A job's actions on its page, when the dashboard serves them (`lanectl dashboard --allow-actions`,
// with its token; read-only dashboards, the default, show none): Suspend, Resume, Delete and
// Resubmit…. Each asks first in a dialog naming the job and the action (Resubmit: a form of the
// fields to change, checked by the server with `lanectl submit`'s own rules, whose errors show in
// the dialog), then POSTs /api/jobs/P/NAME/ACTION with this session's CSRF token (X-CSRF-Token,
// from GET /api/session; its session cookie is HttpOnly).
import { ui } from "./ui.js";

const LABELS = { suspend: "Suspend", resume: "Resume", delete: "Delete", resubmit: "Resubmit…" };
const WHAT = {
  suspend: "Its pods are stopped; the job is kept, Suspended, until it is resumed.",
  resume: "It goes back to the scheduler's queue and runs when its GPUs are free.",
  delete: "Its processes are stopped and the job is removed. This cannot be undone.",
};
const ENDED = new Set(["Succeeded", "Failed", "Deleted"]);

let session = null;  // the promise of /api/session, once per page load

function loadSession() {
  if (!session) session = ui.fetchJSON("/api/session").catch(() => ({ actions: false }));
  return session;
}

async function post(path, body) {
  const { csrfToken } = await loadSession();
  const r = await fetch(path, {
    method: "POST", credentials: "same-origin", body: body === undefined ? undefined : JSON.stringify(body),
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRF-Token": csrfToken || "" },
  });
  const doc = await r.json().catch(() => ({}));
  if (r.status === 403) session = null;  // e.g. a restarted server: the next try opens a new session
  if (!r.ok) throw new Error(doc.error || r.status + " " + r.statusText);
  return doc;
}

// A modal dialog asking `title`; its confirm button (`verb`) runs `run`, whose error stays shown in
// the dialog; Cancel or Escape closes it with nothing done.
function confirmDialog(title, text, fields, verb, run) {
  const error = ui.el("p", { class: "error-box", role: "alert" });
  error.hidden = true;
  const ok = ui.el("button", { type: "submit", class: "primary", dataset: { confirm: "" }, text: verb });
  const cancel = ui.el("button", { type: "button", dataset: { cancel: "" }, text: "Cancel" });
  const form = ui.el("form", { method: "dialog" }, ui.el("h3", { text: title }), ui.el("p", { text }), fields,
    error, ui.el("div", { class: "dialog-buttons" }, cancel, ok));
  const dialog = ui.el("dialog", { class: "action-dialog", "aria-label": title }, form);
  cancel.addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => dialog.remove());
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    ok.disabled = true;
    error.hidden = true;
    try {
      await run();
      dialog.close();
    } catch (e) {
      error.textContent = e.message;
      error.hidden = false;
      ok.disabled = false;
    }
  });
  document.body.append(dialog);
  dialog.showModal();
  return dialog;
}

// The resubmit form's fields, filled from the job's spec (secret values arrive as ****, which the
// server reads as "keep the stored value"), and the body of what was changed.
function resubmitFields(job) {
  const s = job.spec || {};
  const words = (s.command || []).length ? s.command : (s.args || []);
  const initial = {
    image: s.image || "", gpu: String(s.gpu || 0),
    env: (s.env || []).map((e) => e.name + "=" + e.value).join("\n"), args: words.join("\n"),
  };
  const field = (id, label, input, hint) => ui.el("label", { class: "field" }, ui.el("span", { text: label }), input,
    hint ? ui.el("small", { class: "muted", text: hint }) : null);
  const inputs = {
    name: ui.el("input", { name: "name", placeholder: job.name + "-N (the next free one)", autocomplete: "off" }),
    image: ui.el("input", { name: "image", value: initial.image, autocomplete: "off" }),
    env: ui.el("textarea", { name: "env", rows: 4, spellcheck: "false" }),
    args: ui.el("textarea", { name: "args", rows: 3, spellcheck: "false" }),
    gpu: ui.el("input", { name: "gpu", value: initial.gpu, inputmode: "decimal", autocomplete: "off" }),
  };
  inputs.env.value = initial.env;
  inputs.args.value = initial.args;
  const lines = (t) => t.split("\n").map((l) => l.replace(/\r$/, "")).filter((l) => l !== "");
  const body = () => {
    const b = {};
    if (inputs.name.value) b.name = inputs.name.value;
    for (const k of ["image", "gpu"]) if (inputs[k].value !== initial[k]) b[k] = inputs[k].value;
    for (const k of ["env", "args"]) if (inputs[k].value !== initial[k]) b[k] = lines(inputs[k].value);
    return b;
  };
  const fields = ui.el("div", { class: "fields" },
    field("name", "Name", inputs.name), field("image", "Image (-i)", inputs.image),
    field("env", "Environment (-e), one NAME=VALUE a line", inputs.env, "**** keeps the job's secret value"),
    field("args", (s.command || []).length ? "Command, one word a line" : "Arguments, one word a line", inputs.args),
    field("gpu", "GPUs (-g)", inputs.gpu));
  return { fields, body };
}

// The actions bar of a job's page (job.js): update(job) follows its status.
export function mountActions(page) {
  const bar = ui.el("span", { class: "job-actions", id: "job-actions" });
  bar.hidden = true;
  page.root.querySelector(".job-head").append(bar);
  const { project, name } = page.params;
  const base = "/api/jobs/" + encodeURIComponent(project) + "/" + encodeURIComponent(name);
  let job = null;
  const done = (action, doc) => {
    if (action === "delete") location.hash = "#/jobs";
    else if (action === "resubmit") location.hash = ui.jobHref(project, doc.name);
    else page.loadJob();
  };
  const start = (action) => {
    const title = (action === "resubmit" ? "Resubmit" : LABELS[action]) + " job " + project + "/" + name + "?";
    if (action !== "resubmit")
      return confirmDialog(title, WHAT[action], null, LABELS[action], async () => done(action, await post(base + "/" + action)));
    const form = resubmitFields(job);
    return confirmDialog(title, "A new job from this one's spec, with the fields below as changed.", form.fields, "Resubmit",
      async () => done(action, await post(base + "/resubmit", form.body())));
  };
  const buttons = Object.keys(LABELS).map((a) =>
    ui.el("button", { type: "button", class: a === "delete" ? "danger" : "", dataset: { action: a }, text: LABELS[a], onclick: () => start(a) }));
  const update = (j) => {
    job = j || job;
    if (!job) return;
    const [suspend, resume] = buttons;
    suspend.disabled = ENDED.has(job.status) || job.status === "Suspended";
    resume.disabled = job.status !== "Suspended";
  };
  loadSession().then((s) => {
    if (!s.actions || !page.alive) return;
    bar.append(...buttons);
    bar.hidden = false;
    update(null);
  });
  return { update };
}
