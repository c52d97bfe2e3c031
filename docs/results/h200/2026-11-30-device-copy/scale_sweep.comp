layout(local_size_x = 256) in;
layout(std430, binding = 0) restrict readonly buffer X { vec4 x[]; };
layout(std430, binding = 1) restrict writeonly buffer Y { vec4 y[]; };
uniform uint n;  // vec4s
uniform float alpha;
void main() {
  uint lane = gl_LocalInvocationID.x, step = gpgpu_count * 8u;
  for (uint first = (gpgpu_index() - lane) * 8u; first < n; first += step) {
    vec4 v[8];  // eight loads in flight before the first store
    for (uint k = 0u; k < 8u; ++k) {
      uint i = first + k * 256u + lane;
      v[k] = i < n ? x[i] : vec4(0.0);
    }
    for (uint k = 0u; k < 8u; ++k) {
      uint i = first + k * 256u + lane;
      if (i < n) y[i] = alpha * v[k];
    }
  }
}
