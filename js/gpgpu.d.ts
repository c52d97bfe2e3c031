// TypeScript declarations of gpgpu.js, the browser API of gpgpu (js/gpgpu.js; docs/browser.md).
// The original gpgpu.js's calls (CreateGPGPU, compute, makeTextureInfo, clear) come first.

/** A host array of one of the element types GLSL holds exactly. */
export type HostTypedArray = Float32Array | Int32Array | Uint32Array;
/** What can be bound to a kernel variable: an array (input or output), a number or array of
 *  numbers (a uniform), a texture (a sampler), or a Buffer. */
export type ArgValue =
  | HostTypedArray | HostArray | number | boolean | number[] | TextureInfo | Texture | Buffer;
/** Values bound to a kernel's variables by name. */
export type Args = Record<string, ArgValue>;
/** "float", "vec2", "vec3", "vec4", "int", "uint", "ivec4" or "uvec4". */
export type TexelType = string;

/** gpgpu.js's compute() parameter. */
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
  /** Marks the object as a texture (gpgpu.js's duck type). */
  readonly isTexture: true;
  /** What one texel holds. */
  texelType: TexelType;
  /** [rows, cols] or [depth, rows, cols] */
  shape: number[];
  /** Row-major values: the shape's product times the texel's components. */
  value: HostTypedArray;
}

/** One variable of a compiled kernel, as the driver reports it: what Args bind to. */
export interface KernelVariable {
  /** What kind of GLSL variable it is. */
  kind: 'buffer' | 'uniform' | 'sampler' | 'image' | 'in' | 'out';
  /** The name to bind. */
  name: string;
  /** "vec3", "mat4", "usampler2D", ... */
  glslType: string;
  /** The element type arrays bound to it must have. */
  element: 'float32' | 'int32' | 'uint32';
  /** Scalars per element: 3 for a vec3, 16 for a mat4. */
  components: number;
  /** Elements of a GLSL array (1 for a plain variable). */
  arraySize: number;
}

/** The browser's WebGL2 device, read once when the GPGPU object is made. */
export interface DeviceInfo {
  /** Always 'WebGL2' in the browser build. */
  platform: 'WebGL2';
  /** GL_VENDOR. */
  vendor: string;
  /** GL_RENDERER ("WebGL 2.0 (OpenGL ES 3.0 Chromium)" under SwiftShader). */
  renderer: string;
  /** GL_VERSION. */
  version: string;
  /** GL_SHADING_LANGUAGE_VERSION. */
  glslVersion: string;
  /** True for a software rasterizer (SwiftShader, llvmpipe). */
  isSoftware: boolean;
  /** GL_MAX_TEXTURE_SIZE: the widest 2-D texture, in texels. */
  maxTextureSize: number;
  /** GL_MAX_VERTEX_ATTRIBS: per-element inputs of a transform-feedback kernel. */
  maxVertexAttribs: number;
  /** GL_MAX_TRANSFORM_FEEDBACK_SEPARATE_ATTRIBS: outputs captured separately. */
  maxTransformFeedbackSeparateAttribs: number;
  /** GL_MAX_TRANSFORM_FEEDBACK_INTERLEAVED_COMPONENTS: scalars captured interleaved. */
  maxTransformFeedbackInterleavedComponents: number;
  /** GL_MAX_DRAW_BUFFERS: outputs of a fragment kernel. */
  maxDrawBuffers: number;
  /** GL_MAX_VERTEX_TEXTURE_IMAGE_UNITS: samplers a transform-feedback kernel may read. */
  maxVertexTextureImageUnits: number;
  /** EXT_color_buffer_float: fragment kernels may render float textures. */
  colorBufferFloat: boolean;
  /** The WebGL extensions. */
  extensions: string[];
  /** The multi-line report `gpgpu info` prints natively. */
  report: string;
}

/** Something holding module memory or GPU objects: delete() frees it now. */
declare class Handle {
  /** Frees the object's memory and GPU objects now (else when its GPGPU is released). */
  delete(): void;
}

/** A device array: transform-feedback outputs stay on the GPU and feed the next kernel. */
export class Buffer extends Handle {
  /** The element type, as the typed array that holds it. */
  readonly type: Float32ArrayConstructor | Int32ArrayConstructor | Uint32ArrayConstructor;
  /** Elements. */
  readonly length: number;
  /** Copies `values` into the buffer from element `offset` (default 0); returns the buffer. */
  write(values: HostTypedArray, offset?: number): this;
  /** Copies elements from `offset` into `out` (a new array of the rest when left out). */
  read<T extends HostTypedArray>(out?: T, offset?: number): T;
}

/** A 2-D (or 3-D) texture: what fragment kernels read and render into. */
export class Texture extends Handle {
  /** What one texel holds. */
  readonly texelType: TexelType;
  /** [rows, cols] or [depth, rows, cols] */
  readonly shape: number[];
  /** Values write() takes and read() gives: texels times components. */
  readonly valueCount: number;
  /** Replaces the whole contents (valueCount row-major values); returns the texture. */
  write(values: HostTypedArray): this;
  /** The whole contents, into `out` or a new array of the texel's element type. */
  read<T extends HostTypedArray>(out?: T): T;
}

/** An array in the module's memory: kernels read and write it in place (no copies). */
export class HostArray {
  /** Elements. */
  readonly length: number;
  /** A fresh view each time (views end when the module's memory grows). */
  readonly array: HostTypedArray;
  /** Frees the module memory now. */
  delete(): void;
}

/** GPGPUtility's way: one fragment per output element (gpgpu_coord() is (column, row)). */
export class FragmentKernel extends Handle {
  /** The name given when it was made (it names the kernel in errors). */
  readonly label: string;
  /** The kernel's variables: what run() binds. */
  readonly variables: KernelVariable[];
  /** rows, cols: the grid; left out, it comes from the outputs. */
  run(args: Args, rows?: number, cols?: number): void;
}

/** gpgpu.js's way, as an object of its own: one vertex per element. */
export class TransformFeedbackKernel extends Handle {
  /** The name given when it was made (it names the kernel in errors). */
  readonly label: string;
  /** The kernel's variables: what run() binds. */
  readonly variables: KernelVariable[];
  /** Runs the shader once per element; the element count comes from the outputs. */
  run(args: Args): void;
}

/** C = A B (row-major float32; A m x k, B k x n) by one method, compiled once. */
export class MatmulPlan extends Handle {
  /** Rows of A and C. */
  readonly m: number;
  /** Columns of A, rows of B. */
  readonly k: number;
  /** Columns of B and C. */
  readonly n: number;
  /** What runs and why, e.g. the method and its tiling. */
  readonly description: string;
  /** C = A B from host arrays; C is written into `c` when given, else a new array. */
  run(a: Float32Array, b: Float32Array, c?: Float32Array): Float32Array;
  /** C = A B on the GPU: nothing crosses to the host. */
  run(a: Buffer, b: Buffer, c: Buffer): Buffer;
}

/** A gpgpu::nn model on the transform-feedback backend. */
export class Model extends Handle {
  /** The shape of one sample: [C, H, W]. */
  readonly input: number[];
  /** Logits per sample. */
  readonly outputs: number;
  /** The class names saved with the model (may be empty). */
  readonly classes: string[];
  /** Parameter values in all. */
  readonly parameters: number;
  /** A table of the layers, their shapes and parameter counts. */
  readonly summary: string;
  /** Logits of `count` images given as bytes 0..255 (count x C x H x W). */
  forward(pixels: Uint8Array | Uint8ClampedArray, count: number, batch?: number): Float32Array;
  /** The class of each of `count` images (the index of its largest logit). */
  classify(pixels: Uint8Array | Uint8ClampedArray, count: number, batch?: number): Int32Array;
}

/** gpgpu.js's object (CreateGPGPU()): a WebGL2 context and everything made from it. */
export class GPGPU extends Handle {
  /** The device. */
  readonly info: DeviceInfo;
  /** gpgpu.js: runs param.vertexShader once per element over param.args. */
  compute(param: ComputeParam): void;
  /** gpgpu.js: a texture description to pass in compute()'s args for a sampler. */
  makeTextureInfo(texelType: TexelType, shape: number[], value: HostTypedArray): TextureInfo;
  /** gpgpu.js: forgets the kernel of `id` and its textures; false when none had that id. */
  clear(id: string): boolean;

  /** A device array holding a copy of `values`. */
  buffer(values: HostTypedArray): Buffer;
  /** An uninitialised device array of `length` elements of `type`. */
  buffer(type: Float32ArrayConstructor | Int32ArrayConstructor | Uint32ArrayConstructor,
         length: number): Buffer;
  /** A texture of `shape`, filled from `values` when given. */
  texture(texelType: TexelType, shape: number[], values?: HostTypedArray): Texture;
  /** Compiles a GLSL ES 3.00 fragment shader (throws CompileError with the driver's log). */
  fragmentKernel(source: string, label?: string): FragmentKernel;
  /** Compiles a GLSL ES 3.00 vertex shader whose outputs are captured. */
  transformFeedbackKernel(source: string, label?: string): TransformFeedbackKernel;
  /** method: "auto", "transform_feedback_texture", "transform_feedback_vec4",
   *  "transform_feedback_blocked", "fragment_naive" or "fragment_packed". */
  matmulPlan(m: number, k: number, n: number, method?: string): MatmulPlan;
  /** Throws UnsupportedError: WebGL2 has no compute shaders. */
  computeKernel(source: string): never;
  /** An array of `length` elements in the module's memory (no copy when bound). */
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
/** No WebGL2 context could be made. */
export class ContextError extends Error {}
/** A GL call reported an error the library did not expect. */
export class GLError extends Error {}
/** The WebGL context was lost: make a new GPGPU. */
export class ContextLostError extends GLError {}
/** The driver ran out of memory. */
export class OutOfMemoryError extends GLError {}
/** The driver broke a promise of the specification without a GL error. */
export class DriverError extends Error {}
/** A run took longer than its limit. */
export class TimeoutError extends Error {}
/** A shader failed to compile or link; `log` holds the driver's log. */
export class CompileError extends Error {}
/** An argument does not fit the kernel (raised before anything runs). */
export class ArgumentError extends Error {}
/** An argument name matches no active variable of the kernel. */
export class UnknownArgumentError extends ArgumentError {}
/** An active variable of the kernel was given no value. */
export class MissingArgumentError extends ArgumentError {}
/** An array's element type does not match the GLSL declaration. */
export class TypeMismatchError extends ArgumentError {}
/** An array's length does not fit the declaration or the other arguments. */
export class SizeMismatchError extends ArgumentError {}
/** A request exceeds a limit of the device. */
export class LimitError extends Error {}
/** A file (a model) is malformed. */
export class FormatError extends Error {}
/** WebGL2 lacks what the call needs (compute shaders, mapped buffers, float targets). */
export class UnsupportedError extends Error {}

/** Resolves once the WebAssembly module (gpgpu-module.js/.wasm beside gpgpu.js) has loaded. */
export const ready: Promise<unknown>;
/** gpgpu.js: a new GPGPU object, with a WebGL2 context of its own. */
export function CreateGPGPU(options?: {device?: string}): GPGPU;

declare global {
  /** The same API as the global `GPGPU` that gpgpu.js defines when included by <script>. */
  const GPGPU: typeof import('./gpgpu');
  /** The same CreateGPGPU as the module's, as a global of the <script> build. */
  function CreateGPGPU(options?: {device?: string}): import('./gpgpu').GPGPU;
}
