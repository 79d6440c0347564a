// The polling the Projects, Nodes/GPUs and Snapshots pages share: fetch the API paths, hand the
// documents to `show`, every `intervalMs` (and on every change of the jobs stream when
// `onJobs`); one fetch at a time; a failure goes to `status` as an error box naming `what`.
// Returns the page's cleanup (stops the timer and the subscription).
import { ui } from "./ui.js";

export function pollPage({ paths, show, status, what, intervalMs, onJobs }) {
  let stopped = false, busy = false;
  async function refresh() {
    if (busy || stopped) return;
    busy = true;
    try {
      const docs = await Promise.all(paths.map((p) => ui.fetchJSON(p)));
      if (stopped) return;
      status.replaceChildren();
      show(...docs);
    } catch (e) {
      if (!stopped) status.replaceChildren(ui.errorBox("Cannot load " + what + ": " + e.message));
    } finally {
      busy = false;
    }
  }
  refresh();
  const timer = setInterval(refresh, intervalMs);
  const unsubscribe = onJobs ? ui.jobsFeed.subscribe(() => refresh()) : () => {};
  return () => { stopped = true; clearInterval(timer); unsubscribe(); };
}
