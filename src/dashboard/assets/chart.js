// The job page's training curves: one interactive SVG chart per group of metrics.jsonl values
// (drawCharts), each with a legend that toggles its series and a crosshair with the values at the
// nearest x under the pointer.
import { ui } from "./ui.js";

const COLORS = ["#2f6fec", "#e8590c", "#1f9d55", "#ae3ec9", "#d6336c", "#0c8599", "#f08c00", "#5c7cfa"];

// The charts drawn from metrics.jsonl: [title, kind, [[key, label], ...]].
const CHARTS = [
  ["Loss", "train", [["loss", "loss"], ["seg_loss", "segmentation"], ["exist_loss", "existence"]]],
  ["Learning rate", "train", [["lr", "learning rate"]]],
  ["Throughput (images/s)", "train", [["images_per_s", "images/s"]]],
  ["Validation", "val", [["accuracy", "accuracy"], ["fp", "FP"], ["fn", "FN"]]],
];
// Keys of a metrics.jsonl record that are x values, counts or timestamps, not curves.
export const NOT_CURVES = new Set(["step", "epoch", "time", "frames"]);

// The SVG's height and its margins (left, right, top, bottom) around the plot area. Its width is
// its box's (drawAtWidth), so one SVG unit is one CSS pixel and the 11 px text stays 11 px.
const H = 230, L = 58, R = 14, T = 12, B = 30;

export function fmtNum(v) {
  if (v === null || v === undefined || Number.isNaN(v)) return "–";
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e6)) return v.toExponential(2).replace(/\.?0+e/, "e");
  if (Number.isInteger(v)) return String(v);
  return String(Number(v.toPrecision(4)));
}

// Ticks at 1, 2 or 5 times a power of ten, about `n` of them over [lo, hi].
export function niceTicks(lo, hi, n) {
  if (!(hi > lo)) { const d = Math.abs(lo) || 1; lo -= d / 2; hi += d / 2; }
  const raw = (hi - lo) / n, mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw);
  // The axis runs from the tick at or below the lowest value to the one at or above the highest.
  const first = Math.floor(lo / step + 1e-9) * step, last = Math.ceil(hi / step - 1e-9) * step;
  const ticks = [];
  for (let i = 0; first + i * step <= last + step * 1e-9; i++) ticks.push(Number((first + i * step).toPrecision(12)));
  return { lo: first, hi: last, ticks };
}

// Calls draw(width) with `box`'s width in CSS pixels each time it changes (first when the box is
// laid out, before it is painted); `fallback` until then. An SVG whose viewBox is that wide is
// drawn 1:1: a fixed 560-unit viewBox in a phone's 340 px box drew its 11 px text at 6.7 px.
export function drawAtWidth(box, draw, fallback = 560) {
  let width = fallback;
  draw(width);
  const observer = new ResizeObserver(([entry]) => {
    if (!box.isConnected) return observer.disconnect();  // a chart replaced by a newer one
    const w = Math.round(entry.contentRect.width);
    if (w > 0 && w !== width) draw(width = w);
  });
  observer.observe(box);
}

// About one x tick per 80 px of plot.
export function xTickCount(width) { return Math.max(2, Math.round((width - L - R) / 80)); }

// The axes' ticks and the maps from values to SVG coordinates for an SVG `W` wide; null when
// there is nothing to draw.
function scales(xs, cols, shown, W) {
  let xlo = Infinity, xhi = -Infinity, ylo = Infinity, yhi = -Infinity;
  for (const x of xs) if (x !== null) { xlo = Math.min(xlo, x); xhi = Math.max(xhi, x); }
  for (const [key] of shown)
    for (const v of cols[key]) if (v !== null && Number.isFinite(v)) { ylo = Math.min(ylo, v); yhi = Math.max(yhi, v); }
  if (!Number.isFinite(ylo) || !Number.isFinite(xlo)) return null;
  const X = niceTicks(xlo, xhi, xTickCount(W)), Y = niceTicks(ylo, yhi, 5);
  const px = (x) => L + (x - X.lo) / (X.hi - X.lo) * (W - L - R);
  const py = (y) => H - B - (y - Y.lo) / (Y.hi - Y.lo) * (H - T - B);
  return { W, X, Y, px, py };
}

function drawAxes(svg, { W, X, Y, px, py }, xLabel) {
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
}

// One path per shown series (a gap where a value is missing), with dots when there are few points.
function drawSeries(svg, { px, py }, { xs, cols, shown }) {
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
}

// The index of the record nearest to x that has a value in some shown series, or -1.
function nearest({ xs, cols, shown }, x) {
  let best = -1;
  xs.forEach((v, i) => {
    if (v === null) return;
    if (!shown.some(([k]) => cols[k][i] !== null)) return;
    if (best < 0 || Math.abs(v - x) < Math.abs(xs[best] - x)) best = i;
  });
  return best;
}

// The crosshair: a line and a marker per series at the nearest x; values in the tooltip `tip`.
function addCrosshair(svg, tip, s, data) {
  const { xs, cols, shown, xLabel } = data;
  const W = s.W;
  const cross = ui.svg("line", { y1: T, y2: H - B, class: "crosshair", visibility: "hidden" });
  const markers = shown.map(([, , color]) => ui.svg("circle", { r: 4, fill: color, class: "marker", visibility: "hidden" }));
  const hit = ui.svg("rect", { x: L, y: T, width: W - L - R, height: H - T - B, class: "hit" });
  svg.append(cross, ...markers, hit);
  hit.addEventListener("mousemove", (e) => {
    const r = svg.getBoundingClientRect();
    const sx = (e.clientX - r.left) * W / r.width;
    const best = nearest(data, s.X.lo + (sx - L) / (W - L - R) * (s.X.hi - s.X.lo));
    if (best < 0) return;
    cross.setAttribute("x1", s.px(xs[best]));
    cross.setAttribute("x2", s.px(xs[best]));
    cross.setAttribute("visibility", "visible");
    const lines = [ui.el("div", { class: "tip-x", text: xLabel + " " + fmtNum(xs[best]) })];
    shown.forEach(([key, label, color], j) => {
      const v = cols[key][best];
      const m = markers[j];
      if (v === null || !Number.isFinite(v)) { m.setAttribute("visibility", "hidden"); return; }
      m.setAttribute("cx", s.px(xs[best]));
      m.setAttribute("cy", s.py(v));
      m.setAttribute("visibility", "visible");
      const sw = ui.el("span", { class: "swatch" });
      sw.style.background = color;
      lines.push(ui.el("div", { class: "tip-row", dataset: { key } }, sw, label + ": ", ui.el("b", { text: fmtNum(v) })));
    });
    tip.replaceChildren(...lines);
    tip.hidden = false;
    const left = s.px(xs[best]) / W * r.width;
    tip.style.left = (left > r.width * 0.6 ? left - tip.offsetWidth - 12 : left + 12) + "px";
    tip.style.top = "8px";
  });
  hit.addEventListener("mouseleave", () => {
    tip.hidden = true;
    cross.setAttribute("visibility", "hidden");
    for (const m of markers) m.setAttribute("visibility", "hidden");
  });
}

// A legend entry that shows or hides the series `title/key` (in `hidden`) and redraws.
function legendButton(title, [key, label, color], hidden, render) {
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
  return b;
}

// One chart: a title, a legend whose entries toggle their series, an SVG with axes and one
// path per series, and the crosshair.
function drawChart(title, cols, series, hidden) {
  const xs = cols.step || cols.epoch || (series[0] ? cols[series[0][0]].map((_, i) => i) : []);
  const xLabel = cols.step ? "step" : cols.epoch ? "epoch" : "record";
  const box = ui.el("figure", { class: "chart", dataset: { chart: title } });
  const legend = ui.el("div", { class: "legend" });
  box.append(ui.el("figcaption", {}, ui.el("span", { class: "chart-title", text: title }), legend));
  const plot = ui.el("div", { class: "plot" });
  box.append(plot);
  const tip = ui.el("div", { class: "tip" });
  tip.hidden = true;

  let W = 0;
  const render = () => {
    const shown = series.filter(([key]) => !hidden.has(title + "/" + key));
    const svg = ui.svg("svg", { viewBox: `0 0 ${W} ${H}`, height: H, class: "chart-svg", role: "img", "aria-label": title });
    plot.replaceChildren(svg, tip);
    const s = scales(xs, cols, shown, W);
    if (!s) {
      svg.append(ui.svg("text", { x: W / 2, y: H / 2, class: "nodata", "text-anchor": "middle" }, document.createTextNode(shown.length ? "no values yet" : "all series hidden")));
      return;
    }
    const data = { xs, cols, shown, xLabel };
    drawAxes(svg, s, xLabel);
    drawSeries(svg, s, data);
    addCrosshair(svg, tip, s, data);
  };
  for (const entry of series) legend.append(legendButton(title, entry, hidden, render));
  drawAtWidth(plot, (width) => { W = width; render(); });
  return box;
}

// The charts for a /metrics document: the known ones, then one per other kind.
export function drawCharts(kinds, hidden) {
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
    const series = Object.keys(cols).filter((k) => !NOT_CURVES.has(k) && !used.has(kind + "/" + k))
      .map((k) => [k, k, COLORS[c++ % COLORS.length]]);
    if (series.length) out.push(drawChart(kind === "train" ? "Other training values" : kind === "val" ? "Other validation values" : kind, cols, series, hidden));
  }
  return out;
}
