// The dashboard's router: "#/jobs" (default), "#/jobs/PROJECT/NAME", "#/projects", "#/nodes",
// "#/snapshots", "#/compare?jobs=..." mount the page registered under that name (ui.js), with the hash's query
// ("#/jobs?status=Running") as params.query; the one event stream (/api/events) feeds
// ui.jobsFeed for every page, opened after the load event (headless screenshots wait for it).
import { pages, ui } from "./ui.js";

let leavePage = null;

// "#/jobs/p/n" -> {page: "job", params: {project: "p", name: "n", query}}
function route(hash) {
  const [path, search] = hash.replace(/^#\/?/, "").split("?");
  const query = new URLSearchParams(search || "");
  const parts = path.split("/").filter((p) => p !== "").map(decodeURIComponent);
  if (parts.length === 0) return { page: "jobs", params: { query } };
  if (parts[0] === "jobs" && parts.length === 3) return { page: "job", params: { project: parts[1], name: parts[2], query } };
  return { page: parts[0], params: { query } };
}

function show() {
  if (leavePage) { leavePage(); leavePage = null; }
  const { page, params } = route(location.hash);
  const root = document.getElementById("view");
  root.replaceChildren();
  const nav = page === "job" ? "jobs" : page;
  for (const a of document.querySelectorAll(".topbar nav a")) a.classList.toggle("active", a.dataset.page === nav);
  const p = pages[page];
  if (!p) {
    root.append(ui.errorBox("No page '" + page + "'. Pick one above."));
    document.title = "lanectl dashboard";
    return;
  }
  document.title = (typeof p.title === "function" ? p.title(params) : p.title) + " · lanectl dashboard";
  root.dataset.page = page;
  leavePage = p.mount(root, params) || null;
}

document.addEventListener("DOMContentLoaded", () => {
  window.addEventListener("hashchange", show);
  show();
});
window.addEventListener("load", () => setTimeout(() => ui.jobsFeed.connect(), 0));
