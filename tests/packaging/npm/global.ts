// A TypeScript user of the npm package's classic script (<script src=gpgpu.js>): its globals
// GPGPU and CreateGPGPU, declared by the package's types.
/// <reference types="gpgpu" />

GPGPU.ready.then(() => {
  const gpgpu = CreateGPGPU();
  const C = new Float32Array(3);
  gpgpu.compute({id: 'AddVec', vertexShader: 'in float A; in float B; out float C;' +
                 'void main() { C = A + B; }',
                 args: {A: new Float32Array([10, 20, 30]), B: new Float32Array([1, 2, 3]), C}});
  const error: typeof GPGPU.TypeMismatchError = GPGPU.TypeMismatchError;
  // @ts-expect-error: clear takes the kernel's id
  gpgpu.clear();
  console.log(C, error.name);
});
