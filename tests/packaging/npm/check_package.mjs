// Checks the installed npm package as Node and bundlers see it, from inside the folder it was
// installed into (module resolution starts from this file's folder, so it is copied there):
// its package.json (name, version), and that "gpgpu" resolves through "exports" to existing
// files: the ES module for `import`, the classic script for `require`, the declarations for
// "types". Prints "FAIL: ..." and exits 1 on the first problem.
//   node check_package.mjs VERSION
import fs from 'node:fs';
import {createRequire} from 'node:module';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const version = process.argv[2];
const folder = path.dirname(fileURLToPath(import.meta.url));
const installed = path.join(folder, 'node_modules', 'gpgpu');
const fail = (message) => {
  console.log(`FAIL: ${message}`);
  process.exit(1);
};
const expectFile = (what, file, expected) => {
  if (path.resolve(file) !== path.join(installed, expected)) {
    fail(`${what} resolves to ${file}, not ${expected}`);
  }
  if (!fs.existsSync(file)) fail(`${what} resolves to ${file}, which is missing`);
  console.log(`ok: ${what} -> node_modules/gpgpu/${expected}`);
};

const manifest = JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8'));
if (manifest.name !== 'gpgpu') fail(`the package is named ${manifest.name}, not gpgpu`);
if (manifest.version !== version) fail(`the package has version ${manifest.version}, not ${version}`);
console.log(`ok: package.json names gpgpu ${manifest.version}`);

expectFile('import "gpgpu"', fileURLToPath(import.meta.resolve('gpgpu')), 'gpgpu.mjs');
expectFile('require("gpgpu")', createRequire(import.meta.url).resolve('gpgpu'), 'gpgpu.js');
if (!manifest.types) fail('package.json has no "types"');
expectFile('"types"', path.join(installed, manifest.types), 'gpgpu.d.ts');
expectFile('"exports" "types"', path.join(installed, manifest.exports?.['.']?.types ?? ''),
           'gpgpu.d.ts');
