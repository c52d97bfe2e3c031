// The npm package's sample, run by classic.html (the globals of <script src=gpgpu.js>) and by
// module.html (import from "gpgpu"): the seed's AddMulVec (gpgpu.js, seed 003) on fresh random
// Float32Arrays, every element checked against float64, then a wrong-typed call that must throw
// the native exception. Reports through window.gpgpuReport (tests/browser/run.mjs reads it).
'use strict';

const u = 2 ** -24;  // float32's unit roundoff

// |x - exact| <= u |exact|: GLSL ES 3.00 rounds a + b and a * b correctly (one rounding); the
// inputs are float32, so float64 holds a + b and a * b exactly. 2^-126: a product may flush to
// zero where it would be subnormal (allowed by GLSL ES).
function checkOne(name, got, exact) {
  const error = Math.abs(got - exact);
  if (!(error <= u * Math.abs(exact) + 2 ** -126)) {
    throw new Error(`${name} = ${got}, float64 ${exact} (error ${error})`);
  }
}

function addMulVec(api, n) {
  const A = new Float32Array(n), B = new Float32Array(n);
  for (let i = 0; i < n; ++i) {
    A[i] = (Math.random() * 2 - 1) * 2 ** Math.floor(Math.random() * 20 - 10);
    B[i] = (Math.random() * 2 - 1) * 2 ** Math.floor(Math.random() * 20 - 10);
  }
  const C = new Float32Array(n).fill(NaN), D = new Float32Array(n).fill(NaN);  // poisoned
  const gpgpu = api.CreateGPGPU();
  const param = {id: 'AddMulVec', args: {A, B, C, D}, vertexShader:
      'in float A; in float B; out float C; out float D; void main() { C = A + B; D = A * B; }'};
  gpgpu.compute(param);
  for (let i = 0; i < n; ++i) {
    checkOne(`C[${i}]`, C[i], A[i] + B[i]);
    checkOne(`D[${i}]`, D[i], A[i] * B[i]);
  }
  // The same kernel given an Int32Array for the float input A: the C++ library's
  // TypeMismatchError (src/binding/binding.cpp), as the package's class, with its message;
  // C and D keep the results above.
  const before = [C.slice(), D.slice()];
  let thrown = null;
  try {
    gpgpu.compute({...param, args: {A: new Int32Array(n), B, C, D}});
  } catch (e) {
    thrown = e;
  }
  if (!(thrown instanceof api.TypeMismatchError) || !(thrown instanceof api.Error) ||
      !(thrown instanceof Error)) {
    throw new Error(`an Int32Array for 'in float A' gave ${thrown}, not a TypeMismatchError`);
  }
  const expected = `AddMulVec: input 'A' is declared float (1 float component) but was given a ` +
                   `host array of ${n} int32; pass float32 data`;  // Arg::describe() names it
  if (thrown.message !== expected) throw new Error(`the message was "${thrown.message}"`);
  if (![C, D].every((x, k) => x.every((v, i) => Object.is(v, before[k][i])))) {
    throw new Error('the failed call changed C or D');
  }
  gpgpu.clear(param.id);
  gpgpu.release();
  return `${n} elements within u|exact|; ${thrown.name}: ${thrown.message}`;
}

// Runs the checks and leaves the report for run.mjs; `extra` are more checks of the page's own.
async function runSample(api, extra = []) {
  const results = [];
  const checks = [['AddMulVec on random Float32Arrays; a wrong-typed array throws',
                   () => addMulVec(api, 10007)], ...extra];
  for (const [name, check] of checks) {
    try {
      results.push({name, ok: true, detail: await check()});
    } catch (e) {
      results.push({name, ok: false, detail: `${e.name}: ${e.message}`});
    }
  }
  window.gpgpuReport = {done: true, results};
}
