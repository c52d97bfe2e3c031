// y = alpha * x + y over float32 arrays of any length: the kernel of the README's command
// line example (gpgpu run examples/kernels/saxpy.comp x=x.npy y=y.npy --set alpha=2 ...).
layout(local_size_x = 128) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) buffer Y { float y[]; };
uniform float alpha;
void main() {
  uint i = gpgpu_index();          // this invocation's element
  if (i < gpgpu_count) y[i] = alpha * x[i] + y[i];
}
