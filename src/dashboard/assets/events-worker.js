// The jobs event stream (/api/events), held in a dedicated worker and relayed to the page as
// messages {type: "jobs" | "jobs-delta", data} and {type: "error", closed}. A stream the page held
// itself would keep a headless `chromium --virtual-time-budget --screenshot` from ever finishing
// (virtual time waits for the page's open requests); a worker's request does not count.
const events = new EventSource("/api/events");
events.addEventListener("jobs", (e) => postMessage({ type: "jobs", data: e.data }));
events.addEventListener("jobs-delta", (e) => postMessage({ type: "jobs-delta", data: e.data }));
events.onerror = () => postMessage({ type: "error", closed: events.readyState === EventSource.CLOSED });
