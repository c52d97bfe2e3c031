// gpgpu.js — gpgpu's C++ library in the browser (WebAssembly + WebGL2), behind the API of the
// original gpgpu.js (CreateGPGPU, compute, makeTextureInfo, clear), plus GPGPUtility-style
// fragment kernels, Buffers and Textures for chaining, matmul and gpgpu::nn inference.
//
//   <script src="gpgpu.js"></script>          (gpgpu-module.js/.wasm beside it; or
//                                             import {...} from "./gpgpu.mjs" in a module)
//   GPGPU.ready.then(() => {
//     var gpgpu = CreateGPGPU();
//     var C = new Float32Array(6);
//     gpgpu.compute({id: "AddVec", vertexShader: "in float A; in float B; out float C;" +
//                    "void main() { C = A + B; }",
//                    args: {A: new Float32Array([10, 20, 30, 40, 50, 60]),
//                           B: new Float32Array([1, 2, 3, 4, 5, 6]), C: C}});
//     gpgpu.clear("AddVec");                  // C = 11 22 33 44 55 66
//   });
//
// Every failure throws an exception whose class and message are the C++ library's
// (GPGPU.TypeMismatchError, GPGPU.CompileError, ...; all extend GPGPU.Error). docs/browser.md
// is the manual.
(function (root) {
  'use strict';

  // Where gpgpu-module.js/.wasm are loaded from: GPGPU_BASE_URL when it was set before this
  // file ran (by the page, to serve them from elsewhere, or by the ES-module entry gpgpu.mjs,
  // since a module import has no currentScript), else the folder of this <script>.
  const scriptUrl =
      typeof document !== 'undefined' && document.currentScript ? document.currentScript.src : '';
  const baseUrl = root.GPGPU_BASE_URL ? String(root.GPGPU_BASE_URL).replace(/\/?$/, '/')
                  : scriptUrl ? scriptUrl.slice(0, scriptUrl.lastIndexOf('/') + 1) : '';
  let M = null;  // the Emscripten module, once loaded

  // ---- errors: the classes of gpgpu/error.hpp ---------------------------------------------
  class GPGPUError extends Error {
    constructor(message, log) {
      super(message);
      if (log) this.log = log;  // a CompileError's driver log
    }
  }
  Object.defineProperty(GPGPUError.prototype, 'name', {value: 'Error'});
  const errors = {Error: GPGPUError};
  function defineError(name, parent) {
    const cls = class extends errors[parent] {};
    Object.defineProperty(cls, 'name', {value: name});
    Object.defineProperty(cls.prototype, 'name', {value: name});
    errors[name] = cls;
  }
  [['ContextError', 'Error'], ['GLError', 'Error'], ['ContextLostError', 'GLError'],
   ['OutOfMemoryError', 'GLError'], ['DriverError', 'Error'], ['TimeoutError', 'Error'],
   ['CompileError', 'Error'], ['ArgumentError', 'Error'], ['UnknownArgumentError', 'ArgumentError'],
   ['MissingArgumentError', 'ArgumentError'], ['TypeMismatchError', 'ArgumentError'],
   ['SizeMismatchError', 'ArgumentError'], ['LimitError', 'Error'], ['FormatError', 'Error'],
   ['UnsupportedError', 'Error']].forEach(([name, parent]) => defineError(name, parent));

  // The exception of the last failed call into the module.
  function lastError() {
    const name = M.UTF8ToString(M._gpgpu_error_name());
    const message = M.UTF8ToString(M._gpgpu_error_message());
    const log = M.UTF8ToString(M._gpgpu_error_log());
    return new (errors[name] || GPGPUError)(message, log);
  }
  function check(ok) {
    if (!ok) throw lastError();
    return ok;
  }
  function checkedString(pointer) {
    check(pointer);
    return M.UTF8ToString(pointer);
  }
  function requireModule() {
    if (!M) {
      throw new errors.ContextError(
          'the gpgpu WebAssembly module has not loaded yet: wait for GPGPU.ready');
    }
  }

  // ---- memory: what crosses into the module ------------------------------------------------
  const elementCodes = new Map([[Float32Array, 0], [Int32Array, 1], [Uint32Array, 2]]);
  const elementNames = ['float32', 'int32', 'uint32'];
  const arrayTypes = [Float32Array, Int32Array, Uint32Array];

  function describe(value) {
    if (value === null) return 'null';
    if (Array.isArray(value)) return `an Array of ${value.length}`;
    if (ArrayBuffer.isView(value)) return `a ${value.constructor.name} of ${value.length}`;
    if (typeof value === 'object') return `an object (${value.constructor && value.constructor.name})`;
    return `a ${typeof value} (${String(value)})`;
  }
  function elementCode(array, what) {
    const code = elementCodes.get(array.constructor);
    if (code === undefined) {
      throw new errors.TypeMismatchError(
          `${what} is ${describe(array)}; gpgpu takes Float32Array, Int32Array or Uint32Array`);
    }
    return code;
  }

  // Allocations of one call, freed together.
  class Scope {
    constructor() {
      this.pointers = [];
      this.cleanups = [];
    }
    defer(cleanup) { this.cleanups.push(cleanup); }
    alloc(bytes) {
      const p = M._malloc(Math.max(bytes, 4));
      if (!p) throw new errors.OutOfMemoryError('the WebAssembly module ran out of memory');
      this.pointers.push(p);
      return p;
    }
    string(text) {
      const bytes = M.lengthBytesUTF8(text) + 1;
      const p = this.alloc(bytes);
      M.stringToUTF8(text, p, bytes);
      return p;
    }
    // A typed array's bytes in module memory: its own place if it is a HostArray's view,
    // else a copy (skipped for arrays that are only written).
    array(array, copyIn = true) {
      if (array.buffer === M.HEAPU8.buffer) return array.byteOffset;
      const p = this.alloc(array.byteLength);
      if (copyIn) M.HEAPU8.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), p);
      return p;
    }
    int32s(values) {
      const p = this.alloc(values.length * 4);
      M.HEAP32.set(values, p >> 2);
      return p;
    }
    free() {
      this.cleanups.forEach((cleanup) => cleanup());
      this.pointers.forEach((p) => M._free(p));
      this.cleanups = [];
      this.pointers = [];
    }
  }
  function withScope(body) {
    requireModule();
    const scope = new Scope();
    try {
      return body(scope);
    } finally {
      scope.free();
    }
  }
  // Copies results from module memory back into a caller's array (nothing when it is a view
  // of module memory already).
  function copyOut(pointer, array) {
    if (array.buffer === M.HEAPU8.buffer && array.byteOffset === pointer) return;
    array.set(new array.constructor(M.HEAPU8.buffer, pointer, array.length));
  }

  // An array that lives in the module's memory, so that kernels read and write it in place
  // (no copy in or out). `array` is a fresh view each time (views end when memory grows).
  class HostArray {
    constructor(type, length) {
      requireModule();
      elementCode(new type(0), 'HostArray');
      this.type = type;
      this.length = length;
      this.pointer = M._malloc(Math.max(length * type.BYTES_PER_ELEMENT, 4));
      if (!this.pointer) throw new errors.OutOfMemoryError('the WebAssembly module ran out of memory');
    }
    get array() {
      if (!this.pointer) throw new errors.ArgumentError('this HostArray was deleted');
      return new this.type(M.HEAPU8.buffer, this.pointer, this.length);
    }
    delete() {
      if (this.pointer) M._free(this.pointer);
      this.pointer = 0;
    }
  }

  // ---- arguments ----------------------------------------------------------------------------
  // gpgpu.js's texture argument: element type ("float", "vec2", "vec3", "vec4", "int", ...),
  // shape [rows, cols] (or [depth, rows, cols]) and row-major values; uploaded when used.
  class TextureInfo {
    constructor(texelType, shape, value) {
      this.isTexture = true;
      this.texelType = texelType;
      this.shape = shape;
      this.value = value;
    }
  }

  // The element type a JavaScript number or Array takes for variable `v`: its own.
  function numberCode(v, values) {
    if (!v) return 0;
    const integers = values.every((x) => Number.isInteger(x));
    if (/^b(ool|vec)/.test(v.glslType)) return 1;
    if (v.element === 'int32' && integers) return 1;
    if (v.element === 'uint32' && integers && values.every((x) => x >= 0)) return 2;
    return 0;
  }

  // Builds the module's argument list from a JavaScript object; returns it and the arrays to
  // copy back. `texture(name, info)` makes the texture of a TextureInfo (facade only).
  function buildArgs(scope, label, args, variables, texture) {
    if (args === null || typeof args !== 'object') {
      throw new errors.ArgumentError(`${label}: args must be an object of name: value`);
    }
    const list = check(M._gpgpu_args_new());
    scope.defer(() => M._gpgpu_args_free(list));
    const writeBack = [];
    for (const [name, value] of Object.entries(args)) {
      const v = variables.find((x) => x.name === name);
      const cname = scope.string(name);
      if (value instanceof TextureInfo || (value && value.isTexture === true)) {
        if (!texture) {
          throw new errors.TypeMismatchError(
              `${label}: '${name}' is a makeTextureInfo argument, which only compute() takes; ` +
              'give kernels a Texture');
        }
        check(M._gpgpu_args_texture(list, cname, texture(name, value)));
      } else if (value instanceof Texture) {
        check(M._gpgpu_args_texture(list, cname, value.handle()));
      } else if (value instanceof Buffer) {
        check(M._gpgpu_args_buffer(list, cname, value.handle()));
      } else if (value instanceof HostArray) {
        const access = v && v.kind === 'out' ? 2 : 0;
        check(M._gpgpu_args_array(list, cname, elementCode(value.array, name), value.pointer,
                                  value.length, access, 0));
      } else if (ArrayBuffer.isView(value)) {
        const code = elementCode(value, `${label}: argument '${name}'`);
        const output = v && v.kind === 'out';
        const p = scope.array(value, !output);
        check(M._gpgpu_args_array(list, cname, code, p, value.length, output ? 2 : 0, 0));
        if (output) writeBack.push([p, value]);
      } else if (typeof value === 'number' || typeof value === 'boolean' ||
                 (Array.isArray(value) && value.every((x) => typeof x === 'number'))) {
        const values = Array.isArray(value) ? value : [Number(value)];
        const code = numberCode(v, values);
        const typed = new arrayTypes[code](values);
        check(M._gpgpu_args_value(list, cname, code, scope.array(typed), typed.length, 0));
      } else {
        throw new errors.TypeMismatchError(
            `${label}: argument '${name}' is ${describe(value)}; gpgpu takes typed arrays, ` +
            'numbers, Arrays of numbers, makeTextureInfo results, Textures and Buffers');
      }
    }
    return {list, writeBack};
  }
  function finishArgs(built) {
    built.writeBack.forEach(([p, array]) => copyOut(p, array));
  }

  // ---- device objects -----------------------------------------------------------------------
  class Handle {
    constructor(pointer, free) {
      this.pointer = pointer;
      this.freeFn = free;
    }
    handle() {
      if (!this.pointer) throw new errors.ArgumentError(`this ${this.constructor.name} was deleted`);
      return this.pointer;
    }
    delete() {
      if (this.pointer) this.freeFn(this.pointer);
      this.pointer = 0;
    }
  }

  // A device array: transform-feedback outputs written into it stay on the GPU and feed the
  // next kernel as inputs.
  class Buffer extends Handle {
    constructor(gpgpu, type, length) {
      const code = elementCode(new type(0), 'Buffer');
      super(check(M._gpgpu_buffer_new(gpgpu.handle(), code, length)), M._gpgpu_buffer_free);
      this.type = type;
      this.length = length;
    }
    write(values, offset = 0) {
      withScope((s) => check(M._gpgpu_buffer_upload(this.handle(), elementCode(values, 'Buffer.write'),
                                                    s.array(values), values.length, offset)));
      return this;
    }
    read(out = new this.type(this.length), offset = 0) {
      withScope((s) => {
        const p = s.array(out, false);
        check(M._gpgpu_buffer_download(this.handle(), elementCode(out, 'Buffer.read'), p,
                                       out.length, offset));
        copyOut(p, out);
      });
      return out;
    }
  }

  // A 2-D (or 3-D) texture: what fragment kernels read and render into, and what passes hand
  // to each other without leaving the GPU.
  class Texture extends Handle {
    constructor(gpgpu, texelType, shape, values) {
      const pointer = withScope((s) => check(M._gpgpu_texture_new(
          gpgpu.handle(), s.string(texelType), s.int32s(shape), shape.length)));
      super(pointer, M._gpgpu_texture_free);
      this.texelType = texelType;
      this.shape = shape.slice();
      if (values) this.write(values);
    }
    get valueCount() { return M._gpgpu_texture_values(this.handle()); }
    write(values) {
      withScope((s) => check(M._gpgpu_texture_upload(
          this.handle(), elementCode(values, 'Texture.write'), s.array(values), values.length)));
      return this;
    }
    read(out) {
      if (!out) {
        const integer = /^(int|ivec)/.test(this.texelType) ? Int32Array
                        : /^(uint|uvec)/.test(this.texelType) ? Uint32Array : Float32Array;
        out = new integer(this.valueCount);
      }
      withScope((s) => {
        const p = s.array(out, false);
        check(M._gpgpu_texture_download(this.handle(), elementCode(out, 'Texture.read'), p,
                                        out.length));
        copyOut(p, out);
      });
      return out;
    }
  }

  // A kernel of its own (not kept under an id): `run(args)` like compute().
  class Kernel extends Handle {
    constructor(pointer, free, variablesFn, label) {
      super(pointer, free);
      this.label = label;
      this.variables = JSON.parse(checkedString(variablesFn(pointer)));
    }
  }

  // GPGPUtility's way: one fragment per output element; outputs are host arrays (read back)
  // or Textures (kept on the GPU); gpgpu_coord() is the element's (column, row).
  class FragmentKernel extends Kernel {
    constructor(gpgpu, source, label = 'fragment kernel') {
      const pointer = withScope((s) => check(M._gpgpu_fragment_new(gpgpu.handle(), s.string(source),
                                                                   s.string(label))));
      super(pointer, M._gpgpu_fragment_free, M._gpgpu_fragment_variables, label);
    }
    // rows, cols: the grid; left out, it comes from the outputs.
    run(args, rows = 0, cols = 0) {
      withScope((s) => {
        const built = buildArgs(s, this.label, args, this.variables, null);
        check(M._gpgpu_fragment_run(this.handle(), built.list, rows, cols));
        finishArgs(built);
      });
    }
  }

  class TransformFeedbackKernel extends Kernel {
    constructor(gpgpu, source, label = 'transform-feedback kernel') {
      const pointer = withScope((s) => check(M._gpgpu_tf_new(gpgpu.handle(), s.string(source),
                                                             s.string(label))));
      super(pointer, M._gpgpu_tf_free, M._gpgpu_tf_variables, label);
    }
    run(args) {
      withScope((s) => {
        const built = buildArgs(s, this.label, args, this.variables, null);
        check(M._gpgpu_tf_run(this.handle(), built.list));
        finishArgs(built);
      });
    }
  }

  // C = A B (row-major float32, A m x k, B k x n) by one method, compiled once.
  class MatmulPlan extends Handle {
    constructor(gpgpu, m, k, n, method = 'auto') {
      const pointer = withScope((s) => check(M._gpgpu_matmul_new(gpgpu.handle(), m, k, n,
                                                                 s.string(method))));
      super(pointer, M._gpgpu_matmul_free);
      Object.assign(this, {m, k, n});
      this.description = M.UTF8ToString(M._gpgpu_matmul_description(pointer));
    }
    run(a, b, c = new Float32Array(this.m * this.n)) {
      if (a instanceof Buffer) {
        check(M._gpgpu_matmul_run_buffers(this.handle(), a.handle(), b.handle(), c.handle()));
        return c;
      }
      withScope((s) => {
        [a, b, c].forEach((x, i) => {
          if (!(x instanceof Float32Array)) {
            throw new errors.TypeMismatchError(
                `matmul: ${'ABC'[i]} is ${describe(x)}; matmul takes Float32Arrays (or Buffers)`);
          }
        });
        const pc = s.array(c, false);
        check(M._gpgpu_matmul_run(this.handle(), s.array(a), a.length, s.array(b), b.length, pc,
                                  c.length));
        copyOut(pc, c);
      });
      return c;
    }
  }

  // A gpgpu::nn model on the transform-feedback backend.
  class Model extends Handle {
    constructor(pointer) {
      super(pointer, M._gpgpu_nn_free);
      Object.assign(this, JSON.parse(checkedString(M._gpgpu_nn_describe(pointer))));
    }
    // Logits of `count` images given as bytes 0..255 (count x C x H x W).
    forward(pixels, count, batch = 500) {
      if (!(pixels instanceof Uint8Array) && !(pixels instanceof Uint8ClampedArray)) {
        throw new errors.TypeMismatchError(`nn forward: the images are ${describe(pixels)}; ` +
                                           'give a Uint8Array of pixels 0..255');
      }
      const perImage = this.input.reduce((a, b) => a * b, 1);
      if (pixels.length !== count * perImage) {
        throw new errors.SizeMismatchError(
            `nn forward: ${count} images of ${this.input.join(' x ')} need ${count * perImage} ` +
            `pixels; ${pixels.length} were given`);
      }
      const logits = new Float32Array(count * this.outputs);
      withScope((s) => {
        const out = s.array(logits, false);
        check(M._gpgpu_nn_forward(this.handle(), s.array(pixels), count, batch, out));
        copyOut(out, logits);
      });
      return logits;
    }
    // The most likely class of each image.
    classify(pixels, count, batch = 500) {
      const logits = this.forward(pixels, count, batch);
      const classes = new Int32Array(count);
      for (let i = 0; i < count; ++i) {
        let best = 0;
        for (let c = 1; c < this.outputs; ++c) {
          if (logits[i * this.outputs + c] > logits[i * this.outputs + best]) best = c;
        }
        classes[i] = best;
      }
      return classes;
    }
  }

  let modelDirectories = 0;

  // ---- the gpgpu.js object ------------------------------------------------------------------
  class GPGPU extends Handle {
    constructor(options = {}) {
      requireModule();
      const pointer = withScope((s) => check(M._gpgpu_new(s.string(options.device || 'auto'))));
      super(pointer, M._gpgpu_free);
      this.kernelVariables = new Map();  // by id: what compute() binds
    }
    get info() { return JSON.parse(checkedString(M._gpgpu_info_json(this.handle()))); }

    // gpgpu.js: runs param.vertexShader once per element over param.args.
    compute(param) {
      if (!param || typeof param.id !== 'string' || typeof param.vertexShader !== 'string') {
        throw new errors.ArgumentError(
            'gpgpu.compute: the parameter needs an id (string), a vertexShader (string) and args');
      }
      withScope((s) => {
        const id = s.string(param.id);
        const source = s.string(param.vertexShader);
        let variables = this.kernelVariables.get(param.id);
        if (!variables || variables.source !== param.vertexShader) {
          variables = JSON.parse(checkedString(M._gpgpu_kernel_variables(this.handle(), id, source)));
          variables.source = param.vertexShader;
          this.kernelVariables.set(param.id, variables);
        }
        const texture = (name, info) => {
          const values = info.value;
          const code = elementCode(values, `${param.id}: the value of texture '${name}'`);
          return check(M._gpgpu_texture_info(this.handle(), id, s.string(name),
                                             s.string(String(info.texelType)),
                                             s.int32s(info.shape), info.shape.length, code,
                                             s.array(values), values.length));
        };
        const built = buildArgs(s, param.id, param.args, variables, texture);
        check(M._gpgpu_compute(this.handle(), id, source, built.list));
        finishArgs(built);
      });
    }
    makeTextureInfo(texelType, shape, value) { return new TextureInfo(texelType, shape, value); }
    // gpgpu.js: forgets the kernel of `id` and its textures.
    clear(id) {
      this.kernelVariables.delete(id);
      return withScope((s) => {
        const result = M._gpgpu_clear(this.handle(), s.string(id));
        if (result < 0) throw lastError();
        return result === 1;
      });
    }

    buffer(typeOrValues, length) {
      if (ArrayBuffer.isView(typeOrValues)) {
        return new Buffer(this, typeOrValues.constructor, typeOrValues.length).write(typeOrValues);
      }
      return new Buffer(this, typeOrValues, length);
    }
    texture(texelType, shape, values) { return new Texture(this, texelType, shape, values); }
    fragmentKernel(source, label) { return new FragmentKernel(this, source, label); }
    transformFeedbackKernel(source, label) {
      return new TransformFeedbackKernel(this, source, label);
    }
    matmulPlan(m, k, n, method) { return new MatmulPlan(this, m, k, n, method); }
    // C++'s ComputeKernel: WebGL2 has no compute shaders, so this throws UnsupportedError;
    // it is here so that code written for the native library fails with the reason.
    computeKernel(source) {
      const pointer = withScope((s) => check(M._gpgpu_compute_kernel_new(this.handle(),
                                                                         s.string(source))));
      M._gpgpu_compute_kernel_free(pointer);  // not reached in WebGL2
      throw new errors.UnsupportedError('compute kernels cannot run in this build');
    }
    hostArray(type, length) { return new HostArray(type, length); }
    // Waits until the GPU has finished everything submitted (for timing).
    finish() { check(M._gpgpu_finish(this.handle())); }

    // A model directory written by `gpgpu export-web` (model.json and KEY.npy files).
    async loadModel(url) {
      const base = url.endsWith('/') ? url : url + '/';
      const fetchBytes = async (name) => {
        const response = await fetch(base + name);
        if (!response.ok) {
          throw new errors.FormatError(`${base}${name}: HTTP ${response.status} ${response.statusText}`);
        }
        return new Uint8Array(await response.arrayBuffer());
      };
      const json = await fetchBytes('model.json');
      const description = JSON.parse(new TextDecoder().decode(json));
      const directory = `/models/${modelDirectories++}`;
      M.FS.mkdirTree(directory);
      M.FS.writeFile(`${directory}/model.json`, json);
      for (const p of description.parameters || []) {
        M.FS.writeFile(`${directory}/${p.key}.npy`, await fetchBytes(`${p.key}.npy`));
      }
      return withScope((s) => new Model(check(M._gpgpu_nn_load(this.handle(), s.string(directory)))));
    }
    // Frees the WebGL2 context and everything made from it.
    release() { this.delete(); }
  }

  // ---- loading ------------------------------------------------------------------------------
  function loadScript(url) {
    return new Promise((resolve, reject) => {
      const script = document.createElement('script');
      script.src = url;
      script.onload = resolve;
      script.onerror = () => reject(new errors.ContextError(`could not load ${url}`));
      document.head.appendChild(script);
    });
  }
  // Resolves once the module is loaded (gpgpu-module.js and .wasm beside this file).
  const ready = (async () => {
    if (typeof root.GPGPUModule !== 'function') await loadScript(baseUrl + 'gpgpu-module.js');
    M = await root.GPGPUModule({locateFile: (file) => baseUrl + file});
    return api;
  })();

  const api = Object.assign({
    ready,
    CreateGPGPU: (options) => new GPGPU(options),
    GPGPU, Buffer, Texture, TextureInfo, FragmentKernel, TransformFeedbackKernel, MatmulPlan,
    Model, HostArray,
  }, errors);
  api.Error = GPGPUError;
  root.GPGPU = api;
  root.CreateGPGPU = api.CreateGPGPU;
})(typeof globalThis !== 'undefined' ? globalThis : window);
