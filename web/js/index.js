// The page: the seeds' samples, the precision table, the speed test and the Fashion-MNIST demo.
// With ?quick (the screenshot in docs) the speed test runs fewer sizes.
import {el, table, lineChart, nextFrame} from './page.js';
import {squareOnGpu, precisionTable, bound} from './squaring.js';
import {matmulPoint, matmulMethods, ratioText} from './speed.js';
import {loadDemo, classifySamples, drawingPad} from './fashion.js';

const report = {done: false, results: []};
window.gpgpuReport = report;
const section = (name, body) => {
  try {
    const detail = body();
    report.results.push({name, ok: true, detail: detail || ''});
  } catch (e) {
    report.results.push({name, ok: false, detail: `${e.name}: ${e.message}`});
    document.getElementById(name).append(el('p', {class: 'bad', text: `${e.name}: ${e.message}`}));
  }
};

async function main() {
  await GPGPU.ready;
  const gpgpu = CreateGPGPU();
  const info = gpgpu.info;
  document.getElementById('device').textContent = `${info.renderer} — ${info.version}`;

  const samples = document.getElementById('samples');
  for (const name of ['AddVec', 'AddMulVec', 'AddDotVec', 'UniMul', 'UniMulMat', 'TexMulMat',
                      'TexMulMatVec4']) {
    samples.append(el('iframe', {src: `samples/${name}.html`, title: name}));
  }

  section('precision', () => {
    const t = precisionTable(squareOnGpu(gpgpu));
    const box = document.getElementById('precision');
    box.append(table(['coordinate', 'GPU result', 'float64 result', 'relative error'], t.rows));
    box.append(el('p', {class: t.over ? 'bad' : 'ok',
                        text: `All 16,384 elements: largest relative error ${t.worst.toExponential(1)}; ` +
                              `bound γ128 = ${bound.toExponential(1)}; over it: ${t.over}.`}));
  });

  const quick = new URLSearchParams(location.search).has('quick');
  const sizes = quick ? [16, 64, 128, 256] : [16, 32, 64, 128, 256, 512];
  const points = [];
  for (const n of sizes) {
    await nextFrame();
    section('speed', () => { points.push(matmulPoint(gpgpu, n, {repeats: quick ? 1 : 3})); });
  }
  const rows = points.map((p) => [p.n, p.jsGflops.toFixed(3),
                                  ...matmulMethods.map((m) => `${p.methods[m].gflops.toFixed(3)} ` +
                                                              `(${ratioText(p.methods[m].ratio)})`)]);
  document.getElementById('speed').append(
      table(['n', 'JavaScript GFLOP/s', ...matmulMethods.map((m) => `${m} GFLOP/s (vs JS)`)], rows));
  lineChart(document.getElementById('speed-chart'),
            [{name: 'JavaScript', points: points.map((p) => [p.n, p.jsGflops])},
             ...matmulMethods.map((m) => ({name: m, points: points.map((p) => [p.n, p.methods[m].gflops])}))],
            {xLabel: 'n', yLabel: 'GFLOP/s', logX: true});

  await nextFrame();
  const demo = await loadDemo(gpgpu, 'models/fashion-small/');
  section('fashion', () => {
    const r = classifySamples(demo, 40, document.getElementById('fashion'));
    document.getElementById('fashion-summary').append(el('p', {
      text: `${r.correct} of ${r.count} test images classified correctly ` +
            `(${(100 * r.correct / r.count).toFixed(1)}%) in ${r.ms.toFixed(0)} ms; the first 40:`}));
    const pad = drawingPad(demo, document.getElementById('draw'));
    if (quick) {
      // For the screenshot: a pair of trousers drawn in, as a mouse would.
      const g = pad.pad.getContext('2d');
      g.fillStyle = '#fff';
      g.fillRect(70, 30, 84, 30);
      g.fillRect(70, 60, 36, 140);
      g.fillRect(118, 60, 36, 140);
      pad.classify();
    }
  });

  const refusals = document.getElementById('refusals');
  const refused = (what, body) => {
    try {
      body();
      refusals.append(el('li', {class: 'bad', text: `${what}: not refused`}));
    } catch (e) {
      refusals.append(el('li', {text: `${what} → ${e.name}: ${e.message.split('\n')[0]}`}));
    }
  };
  refused('a compute shader', () => gpgpu.computeKernel('layout(local_size_x = 1) in; void main() {}'));
  refused('matmul on Buffers', () => {
    const plan = gpgpu.matmulPlan(4, 4, 4, 'transform_feedback_vec4');
    try { plan.run(...[0, 1, 2].map(() => gpgpu.buffer(Float32Array, 16))); } finally { plan.delete(); }
  });
  refused('reading back a vec3 texture', () => gpgpu.texture('vec3', [2, 2], new Float32Array(12)).read());
  report.done = true;
}

main().catch((e) => {
  report.results.push({name: 'page', ok: false, detail: `${e.name}: ${e.message}`});
  report.done = true;
  console.error(e);
});
