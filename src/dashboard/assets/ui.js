// Shared helpers of the dashboard's pages (plain JavaScript modules, no framework, no build
// step): DOM building, the API fetch, formatting, the page registry the router (app.js) mounts
// from, and the one jobs event stream every page shares. index.html loads each page's module.
//
// A page is registered as `pages[name] = { title, mount(root, params) }`; mount fills `root` and
// may return a function the router calls when the page is left (stop timers, unsubscribe).
// Content-Security-Policy is `default-src 'self'`: no inline script and no `style="..."`
// attribute; set styles through element.style (CSSOM), which the policy allows.
export const pages = {};

export const ui = {
  // el("div", {class: "x", onclick: f, dataset: {k: v}}, child, "text", ...)
  el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") e.className = v;
      else if (k === "dataset") Object.assign(e.dataset, v);
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else if (k === "text") e.textContent = v;
      else e.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) if (c !== undefined && c !== null && c !== false) e.append(c);
    return e;
  },

  // SVG element with attributes.
  svg(tag, attrs, ...children) {
    const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) e.setAttribute(k, v);
    for (const c of children.flat()) if (c) e.append(c);
    return e;
  },

  // GET an API path; resolves to the parsed JSON, rejects with the server's {"error"} message.
  async fetchJSON(path) {
    const r = await fetch(path, { headers: { Accept: "application/json" } });
    const text = await r.text();
    let doc;
    try { doc = JSON.parse(text); } catch (e) { doc = undefined; }
    if (!r.ok) throw new Error((doc && doc.error) || r.status + " " + r.statusText);
    return doc;
  },

  async fetchText(path) {
    const r = await fetch(path);
    const text = await r.text();
    if (!r.ok) {
      let msg = r.status + " " + r.statusText;
      try { msg = JSON.parse(text).error || msg; } catch (e) { /* plain text */ }
      throw new Error(msg);
    }
    return text;
  },

  formatAge(ms) {
    const s = Math.floor(Math.max(0, ms) / 1000);
    if (s < 60) return s + "s";
    const m = Math.floor(s / 60);
    if (m < 60) return m + "m";
    const h = Math.floor(m / 60);
    if (h < 48) return h + "h" + (m % 60 ? (m % 60) + "m" : "");
    return Math.floor(h / 24) + "d";
  },

  // The one date format of every page: "2026-11-27 14:32:50" in local time ("–" when empty, the
  // text itself when unparsable).
  formatTime(t) {
    if (!t) return "–";
    const d = new Date(t);
    if (Number.isNaN(d.getTime())) return String(t);
    const p = (n) => String(n).padStart(2, "0");
    return d.getFullYear() + "-" + p(d.getMonth() + 1) + "-" + p(d.getDate()) + " " +
      p(d.getHours()) + ":" + p(d.getMinutes()) + ":" + p(d.getSeconds());
  },

  // A <time> showing formatTime(t), its machine-readable value and the ISO time in its title.
  time(t) {
    const d = new Date(t || "");
    if (!t || Number.isNaN(d.getTime())) return ui.el("span", { text: ui.formatTime(t) });
    return ui.el("time", { datetime: d.toISOString(), title: d.toISOString(), text: ui.formatTime(t) });
  },

  // Milliseconds since an RFC 3339 time ("" or unparsable: 0).
  since(time, now) {
    const t = Date.parse(time || "");
    return Number.isNaN(t) ? 0 : Math.max(0, (now || Date.now()) - t);
  },

  gpus(v) {
    const n = Number(v || 0);
    return Number.isInteger(n) ? String(n) : n.toFixed(2).replace(/0+$/, "");
  },

  statusBadge(status, reason) {
    const b = ui.el("span", { class: "status " + status, text: status });
    if (reason) b.title = reason;
    return b;
  },

  // "#/jobs/P/N" for a job's page.
  jobHref(project, name) { return "#/jobs/" + encodeURIComponent(project) + "/" + encodeURIComponent(name); },

  errorBox(message) { return ui.el("div", { class: "error-box", role: "alert", text: message }); },

  // The shared jobs stream (/api/events): subscribe(fn) calls fn(jobs) now if a list is known
  // and on every change; returns the unsubscribe function. The stream sends the whole list on
  // connect (`event: jobs`) and then only the changes (`event: jobs-delta`: {upsert, remove}).
  jobsFeed: {
    jobs: null,
    byKey: new Map(),  // "project/name" -> job
    listeners: new Set(),
    subscribe(fn) {
      this.listeners.add(fn);
      if (this.jobs) fn(this.jobs);
      return () => this.listeners.delete(fn);
    },
    publish(jobs) {
      this.byKey = new Map(jobs.map((j) => [j.project + "/" + j.name, j]));
      this.jobs = jobs;
      for (const fn of this.listeners) fn(jobs);
    },
    applyDelta(delta) {
      for (const j of delta.upsert || []) this.byKey.set(j.project + "/" + j.name, j);
      for (const key of delta.remove || []) this.byKey.delete(key);
      this.jobs = [...this.byKey.values()];
      for (const fn of this.listeners) fn(this.jobs);
    },
    // Opens the stream (in events-worker.js); /api/jobs once if it has sent nothing after 3 s
    // (a proxy that buffers).
    connect() {
      const worker = new Worker("/events-worker.js");
      let heard = false;
      worker.onmessage = ({ data: m }) => {
        if (m.type === "error") {
          // Closed for good when the server refused the stream (503: too many open): poll instead.
          if (!m.closed) { ui.setLive(false, "reconnecting…"); return; }
          ui.setLive(false, "polling");
          this.poll();
          return;
        }
        ui.setLive(true, "live");
        if (m.type === "jobs") {
          if (!heard) performance.mark("jobs:first-list");  // the whole list arrived (bench/dashboard_jobs.py)
          heard = true;
          this.publish(JSON.parse(m.data));
        } else if (this.jobs) {
          this.applyDelta(JSON.parse(m.data));
        }
      };
      setTimeout(() => {
        if (!heard) ui.fetchJSON("/api/jobs").then((jobs) => { if (!this.jobs) this.publish(jobs); }).catch(() => {});
      }, 3000);
      return worker;
    },
    // The list from /api/jobs every 5 s, for a page whose stream the server refused.
    poll() {
      ui.fetchJSON("/api/jobs").then((jobs) => this.publish(jobs)).catch(() => {});
      setTimeout(() => this.poll(), 5000);
    },
  },

  setLive(on, text) {
    const el = document.getElementById("live");
    if (!el) return;
    el.className = "live " + (on ? "on" : "off");
    el.textContent = text;
  },
};
