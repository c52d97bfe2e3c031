// y = alpha * x + y, over any number of elements (used by the CLI tests).
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) buffer Y { float y[]; };
uniform float alpha;
void main() {
  uint i = gpgpu_index();
  if (i < gpgpu_count) y[i] = alpha * x[i] + y[i];
}
