// gpgpu.mjs — the ES-module entry of gpgpu's browser API (the npm package's "import" export):
//
//   <script type="module">
//     import {ready, CreateGPGPU} from './node_modules/gpgpu/gpgpu.mjs';
//     await ready;
//     const gpgpu = CreateGPGPU();
//   </script>
//
// The API itself is gpgpu.js, a classic script that defines the global GPGPU (so that the
// seeds' pages work with a plain <script src>). A module import gives it no
// document.currentScript to find gpgpu-module.js/.wasm beside itself, so this file names its
// own folder first (GPGPU_BASE_URL, unless the page set one), then runs gpgpu.js once and
// exports what it defined. The names are those of gpgpu.d.ts; the npm package's test checks
// that they are exactly the global GPGPU's.
globalThis.GPGPU_BASE_URL ??= new URL('./', import.meta.url).href;
if (!globalThis.GPGPU) await import('./gpgpu.js');

export const {
  ready, CreateGPGPU, GPGPU, Buffer, Texture, TextureInfo, FragmentKernel, TransformFeedbackKernel,
  MatmulPlan, Model, HostArray, Error, ContextError, GLError, ContextLostError, OutOfMemoryError,
  DriverError, TimeoutError, CompileError, ArgumentError, UnknownArgumentError,
  MissingArgumentError, TypeMismatchError, SizeMismatchError, LimitError, FormatError,
  UnsupportedError,
} = globalThis.GPGPU;
