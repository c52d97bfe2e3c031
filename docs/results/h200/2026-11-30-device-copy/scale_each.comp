layout(local_size_x = 256) in;
layout(std430, binding = 0) restrict readonly buffer X { vec4 x[]; };
layout(std430, binding = 1) restrict writeonly buffer Y { vec4 y[]; };
uniform uint n;  // vec4s
uniform float alpha;
void main() {
  uint i = gpgpu_index();
  if (i < n) y[i] = alpha * x[i];
}
