// The benchmark page: TF and fragment matmul and SAXPY against plain JavaScript in the same
// page (docs/browser.md: the table there comes from this page, run by scripts/browser-bench.sh).
import {el, table, lineChart, nextFrame} from './page.js';
import {matmulPoint, matmulMethods, ratioText, saxpyPoint} from './speed.js';

const report = {done: false, results: [], data: {}};
window.gpgpuReport = report;
const params = new URLSearchParams(location.search);
const list = (name, fallback) => (params.get(name) || fallback).split(',').map(Number);

async function main() {
  await GPGPU.ready;
  const gpgpu = CreateGPGPU();
  const info = gpgpu.info;
  document.getElementById('device').textContent = `${info.renderer} — ${info.version}`;
  report.data.device = info.renderer;
  report.data.userAgent = navigator.userAgent;

  const points = [];
  for (const n of list('sizes', '64,128,256,512,1024')) {
    await nextFrame();
    const p = matmulPoint(gpgpu, n, {repeats: n >= 512 ? 3 : 5, jsLimit: 1024});
    points.push(p);
    const wrong = Object.entries(p.methods).filter(([, r]) => r.errorRatio !== null && r.errorRatio > 1);
    report.results.push({
      name: `matmul n=${n}`, ok: wrong.length === 0,
      detail: `JS ${p.js.toFixed(1)} ms; ` + Object.entries(p.methods)
          .map(([m, r]) => `${m} ${r.ms.toFixed(1)} ms (${ratioText(r.ratio)})`).join(', ')});
  }
  report.data.matmul = points;
  document.getElementById('matmul').append(table(
      ['n', 'JavaScript ms', ...matmulMethods.map((m) => `${m} ms (x JS)`)],
      points.map((p) => [p.n, p.js.toFixed(1),
                         ...matmulMethods.map((m) => `${p.methods[m].ms.toFixed(1)} (${ratioText(p.methods[m].ratio)})`)])));
  lineChart(document.getElementById('matmul-chart'),
            [{name: 'JavaScript', points: points.map((p) => [p.n, p.jsGflops])},
             ...matmulMethods.map((m) => ({name: m, points: points.map((p) => [p.n, p.methods[m].gflops])}))],
            {xLabel: 'n', yLabel: 'GFLOP/s', logX: true});

  const saxpy = [];
  for (const e of list('saxpy', '16,18,20,22')) {
    await nextFrame();
    const s = saxpyPoint(gpgpu, 2 ** e);
    saxpy.push(s);
    report.results.push({name: `saxpy n=2^${e}`, ok: s.mismatches === 0,
                         detail: `JS ${s.js.toFixed(2)} ms, TF ${s.gpu.toFixed(2)} ms (${s.ratio.toFixed(3)}x)`});
  }
  report.data.saxpy = saxpy;
  document.getElementById('saxpy').append(table(
      ['n', 'JavaScript ms', 'transform feedback ms', 'x JS', 'mismatches'],
      saxpy.map((s) => [s.n, s.js.toFixed(2), s.gpu.toFixed(2), s.ratio.toFixed(3), s.mismatches])));
  gpgpu.release();
  report.done = true;
  // ?report=URL: the results are posted there too (scripts/device/browser-bench.sh, which has
  // no CDP client on the GPU machine).
  if (params.has('report')) {
    await fetch(params.get('report'), {method: 'POST', body: JSON.stringify(report)});
  }
}

main().catch((e) => {
  report.results.push({name: 'benchmark', ok: false, detail: `${e.name}: ${e.message}`});
  report.done = true;
  console.error(e);
  if (params.has('report')) {
    fetch(params.get('report'), {method: 'POST', body: JSON.stringify(report)});
  }
});
