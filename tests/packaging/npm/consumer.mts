// A TypeScript user of the npm package as an ES module (.mts; tsc --strict, node16 resolution:
// "exports" and its "types"). tsc fails when the declarations are missing, loose (with `any`
// the lines marked to expect an error would compile) or unlike the API the sample uses.
import {ready, CreateGPGPU, TypeMismatchError, Error as GPGPUError} from 'gpgpu';
import type {GPGPU, ComputeParam} from 'gpgpu';

export async function addMulVec(A: Float32Array, B: Float32Array): Promise<Float32Array[]> {
  await ready;
  const gpgpu: GPGPU = CreateGPGPU();
  const C = new Float32Array(A.length), D = new Float32Array(A.length);
  const param: ComputeParam = {id: 'AddMulVec', args: {A, B, C, D}, vertexShader:
      'in float A; in float B; out float C; out float D; void main() { C = A + B; D = A * B; }'};
  gpgpu.compute(param);
  try {
    gpgpu.compute({...param, args: {A: new Int32Array(A.length), B, C, D}});
  } catch (e) {
    if (e instanceof TypeMismatchError && e instanceof GPGPUError) console.log(e.message);
  }
  const cleared: boolean = gpgpu.clear(param.id);
  // @ts-expect-error: an id is a string
  gpgpu.compute({id: 1, vertexShader: '', args: {}});
  // @ts-expect-error: Float64Array is not a gpgpu argument
  gpgpu.compute({id: 'x', vertexShader: '', args: {A: new Float64Array(1)}});
  gpgpu.release();
  return cleared ? [C, D] : [];
}
