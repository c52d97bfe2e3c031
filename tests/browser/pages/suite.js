// The browser suite (run by tests/browser/run.mjs in headless Chromium on SwiftShader):
// every seed sample page against the native results, the gpgpu.js facade, transform-feedback
// and fragment kernels and matmul against float64 references on fresh random inputs, bad
// input reaching JavaScript as the native exceptions, the WebGL2 refusals, and gpgpu::nn
// inference against the native logits and their float64 bounds on 10,000 test images.
//
// Tolerances: u = 2^-24 is float32's unit roundoff; a sum of K products computed in float32
// in any order (fused or not) errs by at most (K + 2) u sum |terms| (gamma_K plus one
// rounding for an added term); exact integer data is compared exactly. Every output array
// is poisoned with NaN before a run, and every element is checked.
import {squareOnGpu, precisionTable} from '/js/squaring.js';
import {randomFloats} from '/js/page.js';

const u = 2 ** -24;
const results = [];
window.gpgpuReport = {done: false, results};
const log = (text) => { document.getElementById('log').textContent += text + '\n'; };

async function test(name, body) {
  const started = performance.now();
  try {
    const detail = await body();
    results.push({name, ok: true, detail: detail || ''});
  } catch (e) {
    results.push({name, ok: false, detail: `${e.name}: ${e.message}`});
  }
  log(`${results[results.length - 1].ok ? 'PASS' : 'FAIL'} ${name} ` +
      `(${((performance.now() - started) / 1000).toFixed(2)} s)`);
}
function assert(condition, message) {
  if (!condition) throw new Error(message);
}
// Bitwise equality of every element (NaN poison included, so a skipped write fails).
function assertSame(actual, expected, what) {
  assert(actual.length === expected.length,
         `${what}: ${actual.length} values where ${expected.length} were expected`);
  for (let i = 0; i < expected.length; ++i) {
    assert(Object.is(Math.fround(actual[i]), Math.fround(expected[i])),
           `${what}[${i}] = ${actual[i]}, expected ${expected[i]}`);
  }
}
function expectThrow(body, errorClass, fragment) {
  try {
    body();
  } catch (e) {
    assert(e instanceof errorClass, `threw ${e.name} (${e.message}), expected ${errorClass.name}`);
    assert(e instanceof GPGPU.Error, `${e.name} is not a GPGPU.Error`);
    assert(!fragment || e.message.includes(fragment),
           `the message "${e.message}" does not say "${fragment}"`);
    return e.message;
  }
  throw new Error(`did not throw ${errorClass.name}`);
}
const poisoned = (n) => new Float32Array(n).fill(NaN);
async function fetchBytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

// A seed sample page in a frame of its own: its #result, once it has run.
function runSamplePage(name) {
  return new Promise((resolve, reject) => {
    const frame = document.createElement('iframe');
    frame.src = `/samples/${name}.html`;
    const started = Date.now();
    const poll = () => {
      const result = frame.contentDocument && frame.contentDocument.getElementById('result');
      if (result && result.textContent) {
        const text = result.textContent;
        frame.remove();
        if (text.startsWith('error')) reject(new Error(`${name}.html: ${text}`));
        else resolve(JSON.parse(text));
      } else if (Date.now() - started > 60000) {
        reject(new Error(`${name}.html did not finish`));
      } else {
        setTimeout(poll, 50);
      }
    };
    frame.onload = poll;
    document.body.append(frame);
  });
}

async function main() {
  await GPGPU.ready;
  const native = await (await fetch('/reference/seeds.json')).json();
  const gpgpu = CreateGPGPU();

  await test('device is WebGL2', () => {
    const info = gpgpu.info;
    assert(info.version.includes('OpenGL ES 3.0'), `version ${info.version}`);
    return `${info.renderer}; ${info.version}`;
  });

  for (const name of ['AddVec', 'AddMulVec', 'AddDotVec', 'UniMul', 'UniMulMat', 'TexMulMat',
                      'TexMulMatVec4']) {
    await test(`seed sample page ${name}.html equals native`, async () => {
      const result = await runSamplePage(name);
      for (const [output, values] of Object.entries(native[name])) {
        assertSame(result[output], values, `${name}.${output}`);
      }
      return JSON.stringify(result);
    });
  }

  await test('GPGPUtility 128 x 128 squaring equals native, within gamma(128) of float64', () => {
    const r = squareOnGpu(gpgpu);
    assertSame(r, native.MatrixSquare.r, 'R');
    const table = precisionTable(r);
    assert(table.over === 0, `${table.over} elements beyond the float32 bound`);
    return `worst relative error ${table.worst.toExponential(2)}`;
  });

  await test('facade: texture infos re-uploaded per compute, clear, one source per id', () => {
    const source = `uniform sampler2D T; in float zero; out float C;
      void main() { C = texelFetch(T, ivec2(gl_VertexID % 3, gl_VertexID / 3), 0).r + zero; }`;
    for (const scale of [1, 7]) {
      const values = new Float32Array([1, 2, 3, 4, 5, 6]).map((v) => v * scale);
      const C = poisoned(6);
      gpgpu.compute({id: 'T', vertexShader: source,
                     args: {T: gpgpu.makeTextureInfo('float', [2, 3], values), zero: new Float32Array(6), C}});
      assertSame(C, values, `C (scale ${scale})`);
    }
    expectThrow(() => gpgpu.compute({id: 'T', vertexShader: source + ' ', args: {}}),
                GPGPU.ArgumentError, "already names a program");
    assert(gpgpu.clear('T') === true && gpgpu.clear('T') === false, 'clear() results');
  });

  await test('facade: integers, uniforms by declared type, column-major mat3, HostArray', () => {
    const src = `in int i; uniform int k; uniform uint w; uniform vec3 v; uniform mat3 m;
      flat out int j; out vec3 p;
      void main() { j = i * k + int(w); p = m * v + float(i); }`;
    const i = new Int32Array([-3, 0, 5, 1 << 20]);
    const j = new Int32Array(4).fill(-1);
    const p = gpgpu.hostArray(Float32Array, 12);  // in the module's memory: no copies
    p.array.fill(NaN);
    gpgpu.compute({id: 'ints', vertexShader: src,
                   args: {i, k: 3, w: 7, v: [1, 2, 3], m: new Float32Array([1, 2, 3, 4, 5, 6, 7, 8, 9]),
                          j, p}});
    assertSame(j, Array.from(i, (x) => x * 3 + 7), 'j');
    const mv = [30, 36, 42];  // columns (1,2,3), (4,5,6), (7,8,9) times (1, 2, 3)
    assertSame(p.array, Array.from({length: 12}, (_, e) => mv[e % 3] + i[Math.floor(e / 3)]), 'p');
    p.delete();
    gpgpu.clear('ints');
  });

  await test('transform feedback vs float64: a * x + y and dot products on 100,000 elements', () => {
    const n = 100000, a = 1.75;
    const x = randomFloats(4 * n, 11), y = randomFloats(n, 12);
    const z = poisoned(n), d = poisoned(n);
    const kernel = gpgpu.transformFeedbackKernel(
        'in vec4 x; in float y; uniform float a; out float z; out float d;' +
        'void main() { z = a * x.x + y; d = dot(x, vec4(y)); }');
    kernel.run({x, y, a, z, d});
    kernel.delete();
    for (let i = 0; i < n; ++i) {
      const z64 = a * x[4 * i] + y[i];
      // two roundings (one when fused): 2 u (|a x| + |y|)
      assert(Math.abs(z[i] - z64) <= 2 * u * (Math.abs(a * x[4 * i]) + Math.abs(y[i])), `z[${i}]`);
      let d64 = 0, abs = 0;
      for (let c = 0; c < 4; ++c) { d64 += x[4 * i + c] * y[i]; abs += Math.abs(x[4 * i + c] * y[i]); }
      assert(Math.abs(d[i] - d64) <= (4 + 2) * u * abs, `d[${i}] = ${d[i]}, float64 ${d64}`);
    }
  });

  await test('transform feedback chained through Buffers, and interleaved outputs split', () => {
    const n = 5000;
    const x = randomFloats(n, 21);
    const stage1 = gpgpu.transformFeedbackKernel('in float x; out float y; void main() { y = 2.0 * x; }');
    const stage2 = gpgpu.transformFeedbackKernel(
        'in float y; out mat3 m; out vec2 q; void main() { m = mat3(y); q = vec2(y, -y); }');
    const yb = gpgpu.buffer(Float32Array, n);
    stage1.run({x, y: yb});
    const m = poisoned(9 * n), q = poisoned(2 * n);
    stage2.run({y: yb, m, q});  // 11 components: more than separate capture takes
    for (let i = 0; i < n; ++i) {
      const y = Math.fround(2 * x[i]);  // exact: a power of two
      for (let c = 0; c < 9; ++c) assert(Object.is(m[9 * i + c], c % 4 === 0 ? y : 0), `m[${i}]`);
      assert(q[2 * i] === y && q[2 * i + 1] === -y, `q[${i}]`);
    }
    assertSame(yb.read(), Array.from(x, (v) => 2 * v), 'y Buffer');
    expectThrow(() => stage2.run({y: yb, m: gpgpu.buffer(Float32Array, 9 * n), q}),
                GPGPU.UnsupportedError, 'WebGL2 has no compute shaders');
    [stage1, stage2, yb].forEach((o) => o.delete());
  });

  await test('fragment kernels vs float64: A B into a Texture, then (A B) + 1 read back', () => {
    const [m, k, n] = [45, 61, 38];
    const a = randomFloats(m * k, 31), b = randomFloats(k * n, 32);
    const ta = gpgpu.texture('float', [m, k], a), tb = gpgpu.texture('float', [k, n], b);
    const product = gpgpu.texture('float', [m, n]);
    const multiply = gpgpu.fragmentKernel(`uniform sampler2D A; uniform sampler2D B; out float C;
      void main() { ivec2 ij = gpgpu_coord(); float s = 0.0;
        for (int t = 0; t < textureSize(A, 0).x; ++t)
          s += texelFetch(A, ivec2(t, ij.y), 0).r * texelFetch(B, ivec2(ij.x, t), 0).r;
        C = s; }`);
    const plusOne = gpgpu.fragmentKernel(`uniform sampler2D P; out float R;
      void main() { R = texelFetch(P, gpgpu_coord(), 0).r + 1.0; }`);
    multiply.run({A: ta, B: tb, C: product});
    const r = poisoned(m * n);
    plusOne.run({P: product, R: r}, m, n);
    for (let i = 0; i < m; ++i) {
      for (let j = 0; j < n; ++j) {
        let s = 0, abs = 0;
        for (let t = 0; t < k; ++t) { s += a[i * k + t] * b[t * n + j]; abs += Math.abs(a[i * k + t] * b[t * n + j]); }
        const bound = (k + 2) * u * abs + 2 * u * (Math.abs(s) + 1);
        assert(Math.abs(r[i * n + j] - (s + 1)) <= bound, `R[${i}][${j}] = ${r[i * n + j]}, float64 ${s + 1}`);
      }
    }
    [ta, tb, product, multiply, plusOne].forEach((o) => o.delete());
  });

  await test('matmul: every transform-feedback and fragment method vs float64', () => {
    const shapes = [[1, 1, 1], [37, 53, 29], [130, 67, 257]];
    const methods = ['transform_feedback_texture', 'transform_feedback_vec4',
                     'transform_feedback_blocked', 'fragment_naive', 'fragment_packed', 'auto'];
    let worst = 0;
    for (const [m, k, n] of shapes) {
      const a = randomFloats(m * k, m + 41), b = randomFloats(k * n, n + 42);
      for (const method of methods) {
        const plan = gpgpu.matmulPlan(m, k, n, method);
        const c = poisoned(m * n);
        plan.run(a, b, c);
        plan.delete();
        for (let i = 0; i < m; ++i) {
          for (let j = 0; j < n; ++j) {
            let s = 0, abs = 0;
            for (let t = 0; t < k; ++t) { s += a[i * k + t] * b[t * n + j]; abs += Math.abs(a[i * k + t] * b[t * n + j]); }
            const ratio = Math.abs(c[i * n + j] - s) / ((k + 2) * u * abs || 1);
            assert(ratio <= 1, `${method} ${m}x${k}x${n}: C[${i}][${j}] = ${c[i * n + j]}, float64 ${s}`);
            worst = Math.max(worst, ratio);
          }
        }
      }
    }
    return `largest error ${worst.toFixed(3)} of the float32 bound`;
  });

  await test('bad input reaches JavaScript as the native exceptions; arrays unchanged', () => {
    const src = 'in float A; out float C; void main() { C = A * 2.0; }';
    const C = poisoned(3);
    const messages = [
      expectThrow(() => gpgpu.compute({id: 'e', vertexShader: src, args: {A: new Int32Array(3), C}}),
                  GPGPU.TypeMismatchError, "input 'A' is declared float"),
      expectThrow(() => gpgpu.compute({id: 'e', vertexShader: src, args: {A: new Float64Array(3), C}}),
                  GPGPU.TypeMismatchError, 'Float64Array'),
      expectThrow(() => gpgpu.compute({id: 'e', vertexShader: src, args: {A: new Float32Array(4), C}}),
                  GPGPU.SizeMismatchError, 'same number of elements'),
      expectThrow(() => gpgpu.compute({id: 'e', vertexShader: src, args: {A: new Float32Array(3), C, B: 1}}),
                  GPGPU.UnknownArgumentError, "'B'"),
      expectThrow(() => gpgpu.compute({id: 'e', vertexShader: src, args: {C}}),
                  GPGPU.MissingArgumentError, 'no value given for: in float A'),
    ];
    assert(C.every(Number.isNaN), 'a failed call wrote into C');
    const e = expectThrow(() => gpgpu.compute({id: 'bad', vertexShader: 'out float C; void main() { C = nope; }',
                                               args: {C}}), GPGPU.CompileError, 'nope');
    messages.push(e);
    expectThrow(() => gpgpu.matmulPlan(0, 3, 3), GPGPU.SizeMismatchError, 'positive');
    expectThrow(() => gpgpu.texture('float', [2, 0]), GPGPU.ArgumentError, 'positive');
    return messages.map((m) => m.split('\n')[0]).join(' | ');
  });

  await test('what WebGL2 cannot do is refused by name', () => {
    const said = [
      expectThrow(() => gpgpu.computeKernel('layout(local_size_x = 1) in; void main() {}'),
                  GPGPU.UnsupportedError, 'compute shaders need OpenGL ES 3.1'),
      expectThrow(() => {
        const plan = gpgpu.matmulPlan(4, 4, 4, 'transform_feedback_blocked');
        try {
          const buffers = [0, 1, 2].map(() => gpgpu.buffer(Float32Array, 16));
          plan.run(buffers[0], buffers[1], buffers[2]);
        } finally { plan.delete(); }
      }, GPGPU.UnsupportedError, 'take host arrays, not Buffers'),
      expectThrow(() => gpgpu.matmulPlan(8, 8, 8, 'compute_register_blocked'),
                  GPGPU.UnsupportedError, 'compute shaders'),
      expectThrow(() => gpgpu.texture('vec3', [2, 2], new Float32Array(12)).read(),
                  GPGPU.UnsupportedError, 'WebGL2'),
      expectThrow(() => gpgpu.fragmentKernel('out vec3 C; void main() { C = vec3(1.0); }'),
                  GPGPU.UnsupportedError, 'vec3'),
    ];
    return said.map((m) => m.split(';')[0]).join(' | ');
  });

  await test('gpgpu::nn inference on the test images: native classes, float64 bounds', async () => {
    const info = await (await fetch('/reference/nn/info.json')).json();
    const pixels = await fetchBytes('/reference/nn/pixels.u8');
    const labels = await fetchBytes('/reference/nn/labels.u8');
    const nativeLogits = new Float32Array((await fetchBytes('/reference/nn/logits.f32')).buffer);
    const reference = new Float64Array((await fetchBytes('/reference/nn/reference.f64')).buffer);
    const bound = new Float64Array((await fetchBytes('/reference/nn/bound.f64')).buffer);
    const model = await gpgpu.loadModel('/models/fashion-small/');
    const started = performance.now();
    const logits = model.forward(pixels, info.images);
    const seconds = (performance.now() - started) / 1000;
    const classes = info.classes;
    let disagree = 0, correct = 0, worst = 0;
    for (let i = 0; i < info.images; ++i) {
      const argmax = (v) => { let best = 0; for (let c = 1; c < classes; ++c) if (v[i * classes + c] > v[i * classes + best]) best = c; return best; };
      const mine = argmax(logits), theirs = argmax(nativeLogits);
      if (mine !== theirs) ++disagree;
      if (mine === labels[i]) ++correct;
      if (i < info.bounded) {
        for (let c = 0; c < classes; ++c) {
          const k = i * classes + c;
          const ratio = Math.abs(logits[k] - reference[k]) / bound[k];
          assert(ratio <= 1, `image ${i} logit ${c}: ${logits[k]}, float64 ${reference[k]} +- ${bound[k]}`);
          worst = Math.max(worst, ratio);
        }
      }
    }
    model.delete();
    assert(disagree === 0, `${disagree} of ${info.images} images classified differently from native`);
    return `${info.images} images in ${seconds.toFixed(1)} s, all classified as natively; ` +
           `accuracy ${(100 * correct / info.images).toFixed(2)}%; logits within ` +
           `${worst.toFixed(4)} of their float32 bounds (${info.bounded} images)`;
  });

  gpgpu.release();
  window.gpgpuReport.done = true;
}

main().catch((e) => {
  results.push({name: 'suite', ok: false, detail: `${e.name}: ${e.message}`});
  window.gpgpuReport.done = true;
});
