// The seed's speed test in the browser (seed 003): C = A B for n x n float32 matrices by a
// plain JavaScript triple loop and by gpgpu's transform-feedback and fragment methods in the
// same page; and SAXPY (y = a x + y) by a JavaScript loop and by a transform-feedback
// kernel. Every GPU result is checked against a float64 product before its time counts.
import {medianTime, randomFloats} from './page.js';

export const matmulMethods = ['transform_feedback_texture', 'transform_feedback_vec4',
                              'transform_feedback_blocked', 'fragment_naive', 'fragment_packed'];

// The seed's JavaScript: three loops over Float32Arrays, row-major.
export function jsMatmul(a, b, c, n) {
  for (let row = 0; row < n; row++) {
    for (let col = 0; col < n; col++) {
      let sum = 0;
      for (let i = 0; i < n; i++) sum += a[row * n + i] * b[i * n + col];
      c[row * n + col] = sum;
    }
  }
}

// Largest |c - c64| over (k + 2) u sum |a b| (must be <= 1: the float32 bound of a dot
// product of length k summed in any order; u = 2^-24).
export function matmulErrorRatio(a, b, c, n) {
  let worst = 0;
  for (let row = 0; row < n; row++) {
    for (let col = 0; col < n; col++) {
      let sum = 0, abs = 0;
      for (let i = 0; i < n; i++) {
        const p = a[row * n + i] * b[i * n + col];
        sum += p;
        abs += Math.abs(p);
      }
      const bound = (n + 2) * 2 ** -24 * abs;
      worst = Math.max(worst, Math.abs(c[row * n + col] - sum) / (bound || 1));
    }
  }
  return worst;
}

const gflops = (n, ms) => (2 * n ** 3) / (ms * 1e6);
// "2.40x", or "-" where the JavaScript loop was not timed.
export const ratioText = (ratio) => (ratio === null ? '-' : `${ratio.toFixed(2)}x`);

// One size: {n, js: ms, methods: {name: {ms, gflops, ratio, errorRatio}}}. `jsLimit`: the
// largest n the JavaScript loop runs at (it is slow); `repeats`: timed runs per point.
export function matmulPoint(gpgpu, n, {methods = matmulMethods, repeats = 3, jsLimit = 1024} = {}) {
  const a = randomFloats(n * n, 1 + n), b = randomFloats(n * n, 2 + n);
  const point = {n, methods: {}};
  if (n <= jsLimit) {
    const c = new Float32Array(n * n);
    point.js = medianTime(() => jsMatmul(a, b, c, n), n >= 256 ? 1 : repeats);
    point.jsGflops = gflops(n, point.js);
  }
  for (const method of methods) {
    const plan = gpgpu.matmulPlan(n, n, n, method);
    try {
      const c = new Float32Array(n * n).fill(NaN);
      plan.run(a, b, c);
      const errorRatio = n <= 256 ? matmulErrorRatio(a, b, c, n) : null;
      const ms = medianTime(() => plan.run(a, b, c), repeats);
      point.methods[method] = {ms, gflops: gflops(n, ms), errorRatio,
                               ratio: point.js !== undefined ? point.js / ms : null};
    } finally {
      plan.delete();
    }
  }
  return point;
}

export const saxpyShader = `
in float x;
in float y;
uniform float alpha;
out float z;
void main() { z = alpha * x + y; }`;

// SAXPY over n floats: the JavaScript loop and a transform-feedback kernel (host arrays in
// and out, as a page would call it); the kernel's result checked exactly against float32.
export function saxpyPoint(gpgpu, n, repeats = 5) {
  const x = randomFloats(n, 3), y = randomFloats(n, 4), z = new Float32Array(n);
  const alpha = 1.5;
  const js = medianTime(() => {
    for (let i = 0; i < n; ++i) z[i] = Math.fround(Math.fround(alpha * x[i]) + y[i]);
  }, repeats);
  const expected = z.slice();
  const kernel = gpgpu.transformFeedbackKernel(saxpyShader, 'saxpy');
  try {
    z.fill(NaN);
    kernel.run({x, y, alpha, z});
    let mismatches = 0;
    // A GPU may fuse the multiply-add (one rounding instead of two): within 1 ulp of either.
    for (let i = 0; i < n; ++i) {
      const fused = Math.fround(alpha * x[i] + y[i]);
      if (z[i] !== expected[i] && z[i] !== fused) ++mismatches;
    }
    const gpu = medianTime(() => kernel.run({x, y, alpha, z}), repeats);
    return {n, js, gpu, ratio: js / gpu, mismatches};
  } finally {
    kernel.delete();
  }
}
