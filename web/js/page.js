// Small helpers of the pages: elements, tables, a line chart on a canvas, and timing.
export function el(tag, attributes = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attributes)) {
    if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v);
  }
  children.forEach((c) => e.append(c));
  return e;
}

// rows: arrays of cells; header: the column names.
export function table(header, rows) {
  const t = el('table');
  t.append(el('tr', {}, ...header.map((h) => el('th', {text: h}))));
  rows.forEach((r) => t.append(el('tr', {}, ...r.map((c) => el('td', {text: String(c)})))));
  return t;
}

// A line chart: series {name, points: [[x, y], ...]}; x on a log2 axis when logX.
export function lineChart(canvas, series, {xLabel, yLabel, logX = false}) {
  const g = canvas.getContext('2d');
  const w = canvas.width, h = canvas.height, pad = {l: 60, r: 150, t: 20, b: 40};
  g.fillStyle = '#fff';
  g.fillRect(0, 0, w, h);
  const all = series.flatMap((s) => s.points).filter((p) => Number.isFinite(p[1]));
  if (all.length === 0) return;
  const fx = (x) => (logX ? Math.log2(x) : x);
  const xs = all.map((p) => fx(p[0])), ys = all.map((p) => p[1]);
  const x0 = Math.min(...xs), x1 = Math.max(...xs), y1 = Math.max(...ys) * 1.1 || 1;
  const px = (x) => pad.l + ((fx(x) - x0) / (x1 - x0 || 1)) * (w - pad.l - pad.r);
  const py = (y) => h - pad.b - (y / y1) * (h - pad.t - pad.b);
  g.strokeStyle = '#000';
  g.beginPath();
  g.moveTo(pad.l, pad.t);
  g.lineTo(pad.l, h - pad.b);
  g.lineTo(w - pad.r, h - pad.b);
  g.stroke();
  g.fillStyle = '#000';
  g.font = '12px sans-serif';
  g.fillText(yLabel, 4, pad.t - 6);
  g.fillText(xLabel, (w - pad.r) / 2, h - 8);
  for (const p of all) g.fillText(String(p[0]), px(p[0]) - 8, h - pad.b + 14);
  for (let i = 0; i <= 4; ++i) g.fillText((y1 * i / 4).toPrecision(3), 4, py(y1 * i / 4) + 4);
  const colors = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#17becf'];
  series.forEach((s, i) => {
    g.strokeStyle = g.fillStyle = colors[i % colors.length];
    g.beginPath();
    s.points.forEach((p, j) => (j ? g.lineTo(px(p[0]), py(p[1])) : g.moveTo(px(p[0]), py(p[1]))));
    g.stroke();
    s.points.forEach((p) => g.fillRect(px(p[0]) - 2, py(p[1]) - 2, 4, 4));
    g.fillText(s.name, w - pad.r + 8, pad.t + 16 * i + 10);
  });
}

// The median of `repeats` timed runs (milliseconds) after one warm-up run; `run` must wait
// for its results itself (gpgpu's calls that return data do).
export function medianTime(run, repeats = 5) {
  run();
  const times = [];
  for (let i = 0; i < repeats; ++i) {
    const t0 = performance.now();
    run();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

// Random floats in [-1, 1) from a seeded generator (xorshift32), so runs are repeatable.
export function randomFloats(n, seed) {
  const a = new Float32Array(n);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < n; ++i) {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    a[i] = (s / 4294967296) * 2 - 1;
  }
  return a;
}

// Lets the browser draw before a long computation (the page stays responsive between steps).
export const nextFrame = () => new Promise((resolve) => setTimeout(resolve, 0));
