// TypeScript declarations of gpgpu.js, the browser API of gpgpu (js/gpgpu.js; docs/browser.md).
// The original gpgpu.js's calls (CreateGPGPU, compute, makeTextureInfo, clear) come first.

export type HostTypedArray = Float32Array | Int32Array | Uint32Array;
export type ArgValue =
  | HostTypedArray | HostArray | number | boolean | number[] | TextureInfo | Texture | Buffer;
export type Args = Record<string, ArgValue>;
/** "float", "vec2", "vec3", "vec4", "int", "uint", "ivec4" or "uvec4". */
export type TexelType = string;

export interface ComputeParam {
  /** Names the program: compiled the first time, kept until clear(id). */
  id: string;
  /** GLSL ES 3.00 vertex shader: `in` per-element inputs, `out` results, uniforms. */
  vertexShader: string;
  /** Every in, out and uniform by name. */
  args: Args;
}

/** makeTextureInfo's result: a texture described now, uploaded by each compute(). */
export class TextureInfo {
  readonly isTexture: true;
  texelType: TexelType;
  /** [rows, cols] or [depth, rows, cols] */
  shape: number[];
  value: HostTypedArray;
}

export interface KernelVariable {
  kind: 'buffer' | 'uniform' | 'sampler' | 'image' | 'in' | 'out';
  name: string;
  glslType: string;
  element: 'float32' | 'int32' | 'uint32';
  components: number;
  arraySize: number;
}

export interface DeviceInfo {
  platform: 'WebGL2';
  vendor: string;
  renderer: string;
  version: string;
  glslVersion: string;
  isSoftware: boolean;
  maxTextureSize: number;
  maxVertexAttribs: number;
  maxTransformFeedbackSeparateAttribs: number;
  maxTransformFeedbackInterleavedComponents: number;
  maxDrawBuffers: number;
  maxVertexTextureImageUnits: number;
  colorBufferFloat: boolean;
  extensions: string[];
  /** The multi-line report `gpgpu info` prints natively. */
  report: string;
}

/** Something holding module memory or GPU objects: delete() frees it now. */
declare class Handle {
  delete(): void;
}

/** A device array: transform-feedback outputs stay on the GPU and feed the next kernel. */
export class Buffer extends Handle {
  readonly type: Float32ArrayConstructor | Int32ArrayConstructor | Uint32ArrayConstructor;
  readonly length: number;
  write(values: HostTypedArray, offset?: number): this;
  read<T extends HostTypedArray>(out?: T, offset?: number): T;
}

/** A 2-D (or 3-D) texture: what fragment kernels read and render into. */
export class Texture extends Handle {
  readonly texelType: TexelType;
  readonly shape: number[];
  readonly valueCount: number;
  write(values: HostTypedArray): this;
  read<T extends HostTypedArray>(out?: T): T;
}

/** An array in the module's memory: kernels read and write it in place (no copies). */
export class HostArray {
  readonly length: number;
  /** A fresh view each time (views end when the module's memory grows). */
  readonly array: HostTypedArray;
  delete(): void;
}

/** GPGPUtility's way: one fragment per output element (gpgpu_coord() is (column, row)). */
export class FragmentKernel extends Handle {
  readonly label: string;
  readonly variables: KernelVariable[];
  /** rows, cols: the grid; left out, it comes from the outputs. */
  run(args: Args, rows?: number, cols?: number): void;
}

/** gpgpu.js's way, as an object of its own: one vertex per element. */
export class TransformFeedbackKernel extends Handle {
  readonly label: string;
  readonly variables: KernelVariable[];
  run(args: Args): void;
}

/** C = A B (row-major float32; A m x k, B k x n) by one method, compiled once. */
export class MatmulPlan extends Handle {
  readonly m: number;
  readonly k: number;
  readonly n: number;
  readonly description: string;
  run(a: Float32Array, b: Float32Array, c?: Float32Array): Float32Array;
  run(a: Buffer, b: Buffer, c: Buffer): Buffer;
}

/** A gpgpu::nn model on the transform-feedback backend. */
export class Model extends Handle {
  readonly input: number[];
  readonly outputs: number;
  readonly classes: string[];
  readonly parameters: number;
  readonly summary: string;
  /** Logits of `count` images given as bytes 0..255 (count x C x H x W). */
  forward(pixels: Uint8Array | Uint8ClampedArray, count: number, batch?: number): Float32Array;
  classify(pixels: Uint8Array | Uint8ClampedArray, count: number, batch?: number): Int32Array;
}

export class GPGPU extends Handle {
  readonly info: DeviceInfo;
  /** gpgpu.js: runs param.vertexShader once per element over param.args. */
  compute(param: ComputeParam): void;
  makeTextureInfo(texelType: TexelType, shape: number[], value: HostTypedArray): TextureInfo;
  /** gpgpu.js: forgets the kernel of `id` and its textures; false when none had that id. */
  clear(id: string): boolean;

  buffer(values: HostTypedArray): Buffer;
  buffer(type: Float32ArrayConstructor | Int32ArrayConstructor | Uint32ArrayConstructor,
         length: number): Buffer;
  texture(texelType: TexelType, shape: number[], values?: HostTypedArray): Texture;
  fragmentKernel(source: string, label?: string): FragmentKernel;
  transformFeedbackKernel(source: string, label?: string): TransformFeedbackKernel;
  /** method: "auto", "transform_feedback_texture", "transform_feedback_vec4",
   *  "transform_feedback_blocked", "fragment_naive" or "fragment_packed". */
  matmulPlan(m: number, k: number, n: number, method?: string): MatmulPlan;
  /** Throws UnsupportedError: WebGL2 has no compute shaders. */
  computeKernel(source: string): never;
  hostArray(type: Float32ArrayConstructor | Int32ArrayConstructor | Uint32ArrayConstructor,
            length: number): HostArray;
  /** Waits until the GPU has finished everything submitted. */
  finish(): void;
  /** A model directory written by `gpgpu export-web`. */
  loadModel(url: string): Promise<Model>;
  /** Frees the WebGL2 context and everything made from it. */
  release(): void;
}

/** The C++ library's exceptions (gpgpu/error.hpp), with its messages. */
export class Error extends globalThis.Error {
  /** A CompileError's driver log. */
  log?: string;
}
export class ContextError extends Error {}
export class GLError extends Error {}
export class ContextLostError extends GLError {}
export class OutOfMemoryError extends GLError {}
export class DriverError extends Error {}
export class TimeoutError extends Error {}
export class CompileError extends Error {}
export class ArgumentError extends Error {}
export class UnknownArgumentError extends ArgumentError {}
export class MissingArgumentError extends ArgumentError {}
export class TypeMismatchError extends ArgumentError {}
export class SizeMismatchError extends ArgumentError {}
export class LimitError extends Error {}
export class FormatError extends Error {}
export class UnsupportedError extends Error {}

/** Resolves once the WebAssembly module (gpgpu-module.js/.wasm beside gpgpu.js) has loaded. */
export const ready: Promise<unknown>;
/** gpgpu.js: a new GPGPU object, with a WebGL2 context of its own. */
export function CreateGPGPU(options?: {device?: string}): GPGPU;

declare global {
  /** The same API as the global `GPGPU` that gpgpu.js defines when included by <script>. */
  const GPGPU: typeof import('./gpgpu');
  function CreateGPGPU(options?: {device?: string}): import('./gpgpu').GPGPU;
}
