// GPGPUtility's sample (seed 002): square a 128 x 128 matrix M(i, j) = 1000 i + j with two
// fragment passes (the first renders M into a texture, the second reads it and renders
// R = M^2), and the seed's precision table: GPU results against float64.
//
// The float64 column is exact (every product and partial sum is an integer below 2^53). The
// GPU column is float32: M is exact, but each of the 128 products and sums rounds, so the
// relative error is at most gamma(128) = 128 u / (1 - 128 u) ~ 7.6e-6 with u = 2^-24 (all
// terms are positive, so the bound is relative to R itself).
export const matrixInit = `
out float m;
void main() {
  ivec2 ij = gpgpu_coord();  // x: column j, y: row i
  m = float(1000 * ij.y + ij.x);
}`;

export const matrixSquare = `
uniform sampler2D m;
out float r;
void main() {
  ivec2 ij = gpgpu_coord();  // x: column j, y: row i
  int n = textureSize(m, 0).x;
  float value = 0.0;
  for (int k = 0; k < n; ++k) {
    value += texelFetch(m, ivec2(k, ij.y), 0).r * texelFetch(m, ivec2(ij.x, k), 0).r;
  }
  r = value;
}`;

export const n = 128;

// R = M^2 on the GPU, read back row-major.
export function squareOnGpu(gpgpu) {
  const init = gpgpu.fragmentKernel(matrixInit, 'matrix init');
  const square = gpgpu.fragmentKernel(matrixSquare, 'matrix square');
  const m = gpgpu.texture('float', [n, n]);
  const r = new Float32Array(n * n);
  try {
    init.run({m});
    square.run({m, r}, n, n);
  } finally {
    [init, square, m].forEach((x) => x.delete());
  }
  return r;
}

export function float64(i, j) {
  let sum = 0;
  for (let k = 0; k < n; ++k) sum += (1000 * i + k) * (1000 * k + j);
  return sum;
}

export const bound = (() => {
  const u = 2 ** -24;
  return (128 * u) / (1 - 128 * u);
})();

// The seed's table at its coordinates, and the worst relative error over all elements.
export function precisionTable(r) {
  const points = [[1, 1], [10, 12], [20, 30], [100, 100], [101, 101], [127, 127]];
  const rows = points.map(([i, j]) => {
    const truth = float64(i, j);
    return [`(${i}, ${j})`, r[i * n + j].toFixed(0), truth.toFixed(0),
            (Math.abs(r[i * n + j] - truth) / truth).toExponential(1)];
  });
  let worst = 0, over = 0;
  for (let i = 0; i < n; ++i) {
    for (let j = 0; j < n; ++j) {
      const truth = float64(i, j);
      const relative = Math.abs(r[i * n + j] - truth) / truth;
      worst = Math.max(worst, relative);
      if (relative > bound) ++over;
    }
  }
  return {rows, worst, over};
}
