// Small SVG charts with labelled axes, gridlines and a legend: line charts (agreement by
// sentence length) and bar charts (histograms). Series are told apart by colour AND by dash
// pattern and marker shape, so they survive greyscale and colour blindness.
const NS = "http://www.w3.org/2000/svg";

function node(tag, attrs = {}, text) {
  const n = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) n.setAttribute(k, v);
  if (text !== undefined) n.textContent = text;
  return n;
}

// Round tick values covering [lo, hi] with about `count` steps.
export function ticks(lo, hi, count = 5) {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) || raw;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toFixed(10)));
  return out;
}

const MARKERS = ["circle", "square", "triangle", "diamond"];

function marker(kind, x, y, cls) {
  const r = 3.5;
  if (kind === "circle") return node("circle", { cx: x, cy: y, r, class: `dot ${cls}` });
  if (kind === "square") return node("rect", { x: x - r, y: y - r, width: 2 * r, height: 2 * r, class: `dot ${cls}` });
  const pts = kind === "triangle" ? [[x, y - r - 1], [x + r + 1, y + r], [x - r - 1, y + r]] : [[x, y - r - 1], [x + r + 1, y], [x, y + r + 1], [x - r - 1, y]];
  return node("polygon", { points: pts.map((p) => p.join(",")).join(" "), class: `dot ${cls}` });
}

function frame({ width, height, margin, xLabel, yLabel, title }) {
  const svg = node("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart", role: "img", "aria-label": title || `${yLabel} by ${xLabel}` });
  if (title) svg.append(node("title", {}, title));
  svg.append(node("text", { x: margin.left + (width - margin.left - margin.right) / 2, y: height - 6, "text-anchor": "middle", class: "axis-label" }, xLabel));
  svg.append(node("text", { transform: `translate(14 ${margin.top + (height - margin.top - margin.bottom) / 2}) rotate(-90)`, "text-anchor": "middle", class: "axis-label" }, yLabel));
  return svg;
}

// series: [{name, points: [[x, y|null], ...], dashed}]; x values are numbers or category labels.
export function lineChart({ series, xLabel, yLabel, title, yMin = null, yMax = null, categories = null, width = 640, height = 320 }) {
  const margin = { top: 16, right: 16, bottom: 48, left: 56 };
  const svg = frame({ width, height, margin, xLabel, yLabel, title });
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const ys = series.flatMap((s) => s.points.map((p) => p[1])).filter((v) => v !== null && Number.isFinite(v));
  const lo = yMin ?? Math.min(0, ...ys);
  const hi = yMax ?? Math.max(1, ...ys);
  const cats = categories || [...new Set(series.flatMap((s) => s.points.map((p) => p[0])))];
  const xAt = (x) => margin.left + (cats.length <= 1 ? plotW / 2 : (cats.indexOf(x) / (cats.length - 1)) * plotW);
  const yAt = (y) => margin.top + plotH - ((y - lo) / (hi - lo || 1)) * plotH;
  const axis = node("g", { class: "axis" });
  for (const t of ticks(lo, hi)) {
    axis.append(node("line", { x1: margin.left, x2: margin.left + plotW, y1: yAt(t), y2: yAt(t), class: "gridline" }));
    axis.append(node("text", { x: margin.left - 8, y: yAt(t) + 4, "text-anchor": "end" }, String(t)));
  }
  for (const c of cats) axis.append(node("text", { x: xAt(c), y: margin.top + plotH + 18, "text-anchor": "middle" }, String(c)));
  axis.append(node("line", { x1: margin.left, x2: margin.left + plotW, y1: margin.top + plotH, y2: margin.top + plotH }));
  axis.append(node("line", { x1: margin.left, x2: margin.left, y1: margin.top, y2: margin.top + plotH }));
  svg.append(axis);
  series.forEach((s, k) => {
    const cls = `s${(k % 4) + 1}`;
    const shape = MARKERS[k % MARKERS.length];
    const g = node("g", { "data-series": s.name });
    // A gap (undefined value) breaks the line instead of drawing it through 0.
    let run = [];
    const flush = () => {
      if (run.length > 1) g.append(node("polyline", { points: run.map((p) => p.join(",")).join(" "), class: `line ${cls}${s.dashed ? " dash" : ""}` }));
      run = [];
    };
    for (const [x, y] of s.points) {
      if (y === null || !Number.isFinite(y)) {
        flush();
        continue;
      }
      run.push([xAt(x), yAt(y)]);
      const m = marker(shape, xAt(x), yAt(y), cls);
      m.append(node("title", {}, `${s.name} at ${x}: ${Number(y).toFixed(3)}`));
      g.append(m);
    }
    flush();
    svg.append(g);
  });
  return svg;
}

export function legend(series) {
  const box = document.createElement("div");
  box.className = "chart-legend";
  series.forEach((s, k) => {
    const cls = `s${(k % 4) + 1}`;
    const item = document.createElement("span");
    const sw = node("svg", { width: 30, height: 12, "aria-hidden": "true", class: "chart" });
    sw.append(node("line", { x1: 0, x2: 30, y1: 6, y2: 6, class: `line ${cls}${s.dashed ? " dash" : ""}` }), marker(MARKERS[k % MARKERS.length], 15, 6, cls));
    item.append(sw, document.createTextNode(s.name));
    box.append(item);
  });
  return box;
}

// bins: [{label, count}]
export function barChart({ bins, xLabel, yLabel, title, width = 640, height = 260 }) {
  const margin = { top: 12, right: 12, bottom: 48, left: 56 };
  const svg = frame({ width, height, margin, xLabel, yLabel, title });
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const hi = Math.max(1, ...bins.map((b) => b.count));
  const yAt = (y) => margin.top + plotH - (y / hi) * plotH;
  const axis = node("g", { class: "axis" });
  for (const t of ticks(0, hi).filter((t) => Number.isInteger(t))) {
    axis.append(node("line", { x1: margin.left, x2: margin.left + plotW, y1: yAt(t), y2: yAt(t), class: "gridline" }));
    axis.append(node("text", { x: margin.left - 8, y: yAt(t) + 4, "text-anchor": "end" }, String(t)));
  }
  svg.append(axis);
  const w = plotW / Math.max(bins.length, 1);
  const every = Math.ceil(bins.length / 12);
  bins.forEach((b, k) => {
    const barW = Math.min(Math.max(w - 2, 1), 96); // a few bins do not make slabs
    const rect = node("rect", { x: margin.left + k * w + (w - barW) / 2, y: yAt(b.count), width: barW, height: margin.top + plotH - yAt(b.count), class: "bar" });
    rect.append(node("title", {}, `${b.label}: ${b.count}`));
    svg.append(rect);
    if (k % every === 0) svg.append(node("text", { x: margin.left + k * w + w / 2, y: margin.top + plotH + 18, "text-anchor": "middle" }, String(b.label)));
  });
  svg.append(node("line", { x1: margin.left, x2: margin.left + plotW, y1: margin.top + plotH, y2: margin.top + plotH, class: "axis" }));
  return svg;
}
