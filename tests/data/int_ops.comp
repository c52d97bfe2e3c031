// Exact integer work: sum and product (wrapping) of two int32 arrays, and a uint mask.
layout(local_size_x = 32) in;
layout(std430, binding = 0) readonly buffer A { int a[]; };
layout(std430, binding = 1) readonly buffer B { int b[]; };
layout(std430, binding = 2) writeonly buffer S { ivec2 s[]; };
layout(std430, binding = 3) writeonly buffer M { uint m[]; };
uniform uint mask;
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  s[i] = ivec2(a[i] + b[i], a[i] * b[i]);
  m[i] = uint(a[i]) & mask;
}
